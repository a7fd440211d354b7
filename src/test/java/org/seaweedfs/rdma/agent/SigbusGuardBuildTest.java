package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.ucx.SigbusGuard;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The guard cannot go missing by accident: the build step the pom runs fails, naming what to install, when gcc is
 * not on PATH or the C source does not compile; only -Dsigbusguard.skip=true builds without it.
 */
class SigbusGuardBuildTest {

    private static final Path SCRIPT = Path.of("src/main/c/build-sigbus-guard.sh");
    private static final String SOURCE = "src/main/c/sigbus_guard.c";
    private static final String JAVA_HOME = System.getProperty("java.home");

    private record Run(int status, String output) {
    }

    private static Run build(Path classes, String source, String path) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("/bin/sh", SCRIPT.toString(), classes.toString(), JAVA_HOME, source)
                .redirectErrorStream(true);
        if (path != null) {
            builder.environment().put("PATH", path);
        }
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the build step finished");
        return new Run(process.exitValue(), output);
    }

    private static void assertInstallHint(String output) {
        assertTrue(output.contains("apt-get install -y gcc"), output);
        assertTrue(output.contains("-Dsigbusguard.skip=true"), output);
    }

    @Test
    void withoutGccOnPathTheBuildFailsAndSaysWhatToInstall(@TempDir Path dir) throws Exception {
        Path emptyBin = Files.createDirectory(dir.resolve("bin"));
        Run run = build(dir.resolve("classes"), SOURCE, emptyBin.toString());
        assertEquals(1, run.status(), run.output());
        assertTrue(run.output().contains("gcc not found"), run.output());
        assertInstallHint(run.output());
        assertFalse(Files.exists(dir.resolve("classes/native/libsigbusguard.so")));
    }

    @Test
    void aCompileErrorFailsTheBuildAndSaysWhatToInstall(@TempDir Path dir) throws Exception {
        Path broken = Files.writeString(dir.resolve("broken.c"), "#include <no_such_header.h>\n");
        Run run = build(dir.resolve("classes"), broken.toString(), null);
        assertEquals(1, run.status(), run.output());
        assertTrue(run.output().contains("gcc failed to compile"), run.output());
        assertInstallHint(run.output());
    }

    @Test
    void withGccTheStepBuildsTheLibrary(@TempDir Path dir) throws Exception {
        Run run = build(dir.resolve("classes"), SOURCE, null);
        assertEquals(0, run.status(), run.output());
        assertTrue(Files.size(dir.resolve("classes/native/libsigbusguard.so")) > 0);
    }

    /** This build ran the step: the guard is in the classes and loads (the agent's start-up warning is off). */
    @Test
    void thisBuildCarriesAnActiveGuard() {
        assertTrue(Files.isRegularFile(Path.of("target/classes/native/libsigbusguard.so")));
        assertTrue(SigbusGuard.active());
        assertNull(SigbusGuard.absenceWarning());
    }

    /** The pom's compile phase runs this script, skipped only when sigbusguard.skip is set (false by default). */
    @Test
    void thePomRunsTheScriptUnlessSkippedExplicitly() throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile());
        assertEquals("false", text(pom.getDocumentElement(), "properties", "sigbusguard.skip"));
        NodeList executions = pom.getElementsByTagName("execution");
        Element guard = null;
        for (int i = 0; i < executions.getLength(); i++) {
            Element e = (Element) executions.item(i);
            if ("sigbus-guard".equals(text(e, "id"))) {
                guard = e;
            }
        }
        assertTrue(guard != null, "an execution sigbus-guard");
        assertEquals("compile", text(guard, "phase"));
        assertEquals("${sigbusguard.skip}", text(guard, "configuration", "skip"));
        assertEquals("sh", text(guard, "configuration", "executable"));
        NodeList args = ((Element) guard.getElementsByTagName("arguments").item(0)).getElementsByTagName("argument");
        assertEquals(List.of("${project.basedir}/" + SCRIPT, "${project.build.outputDirectory}", "${java.home}",
                "${project.basedir}/" + SOURCE), List.of(args.item(0).getTextContent(), args.item(1).getTextContent(),
                args.item(2).getTextContent(), args.item(3).getTextContent()));
    }

    private static String text(Element parent, String... path) {
        Element e = parent;
        for (String name : path) {
            Element child = null;
            for (var n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element c && c.getTagName().equals(name)) {
                    child = c;
                }
            }
            if (child == null) {
                return null;
            }
            e = child;
        }
        return e.getTextContent().strip();
    }
}
