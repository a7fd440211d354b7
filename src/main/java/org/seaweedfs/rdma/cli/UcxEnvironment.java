package org.seaweedfs.rdma.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * UCX 1.13 reads some settings only from the process environment, and a JVM cannot change its own: UCX's signal
 * handlers would fight the JVM's, a restarted agent could not rebind its port at once, and UCX would print on stdout.
 * The commands that start UCX relaunch the JVM once with them set (unless the operator already set them), so
 * {@code java -jar ... serve} behaves like the scripted start. The same relaunch adds JVM options a role needs and the
 * command line lacks ({@link HeapBound}). Transport settings (segment sizes, shared memory's error handling) are not
 * here: every UCX context of the library sets them itself ({@code ucx.UcxSettings#contextConfig}), so an application
 * that embeds the library without this relaunch gets the same and can talk to any peer.
 */
final class UcxEnvironment {

    /** Set in the relaunched child so it never relaunches again. */
    static final String RELAUNCHED = "SEAWEEDFS_RELAUNCHED_WITH_UCX_ENV";

    static final Map<String, String> REQUIRED = requiredVariables();

    private UcxEnvironment() {
    }

    private static Map<String, String> requiredVariables() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("UCX_ERROR_SIGNALS", "");
        env.put("UCX_TCP_CM_REUSEADDR", "y");
        // UCX prints its own warnings and errors on stdout by default, among the program's output: send them to
        // stderr, beside the logs (UCX 1.13 accepts "stdout"/"stderr" as well as a file name).
        env.put("UCX_LOG_FILE", "stderr");
        return env;
    }

    /** The variables missing from {@code env}. */
    static Map<String, String> missing(Map<String, String> env) {
        Map<String, String> missing = new LinkedHashMap<>();
        REQUIRED.forEach((k, v) -> {
            if (!env.containsKey(k)) {
                missing.put(k, v);
            }
        });
        return missing;
    }

    /**
     * Relaunches this JVM with the missing variables (and {@code jvmOptions}, e.g. a heap bound) and returns its exit
     * status, or -1 when nothing was missing (or this already is the relaunched child, or the launch command cannot
     * be determined).
     */
    static int relaunchIfNeeded(String[] args, List<String> jvmOptions) throws IOException, InterruptedException {
        Map<String, String> env = System.getenv();
        Map<String, String> missing = missing(env);
        if ((missing.isEmpty() && jvmOptions.isEmpty()) || env.containsKey(RELAUNCHED)) {
            return -1;
        }
        String javaHome = System.getProperty("java.home");
        String classPath = System.getProperty("java.class.path");
        if (javaHome == null || classPath == null || classPath.isEmpty()) {
            return -1;
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(javaHome, "bin", "java").toString());
        command.addAll(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(jvmOptions);
        ClassArchive classes = ClassArchive.forThisJvm(javaHome, classPath);
        if (classes != null) {
            command.addAll(classes.jvmOptions());
        }
        if (Runtime.version().feature() >= 22) {
            // The jar's Enable-Native-Access manifest entry applies to -jar only; the child runs with -cp.
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        if (Runtime.version().feature() >= 24) {
            // msgpack-core reads arrays through sun.misc.Unsafe; allowed knowingly until it moves off it.
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        command.add("-cp");
        command.add(classPath);
        command.add(Main.class.getName());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().putAll(missing);
        builder.environment().put(RELAUNCHED, "1");
        Process child = builder.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            child.destroy();
            try {
                // The child records its class archive as it exits: wait for that before this JVM goes.
                if (child.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) && classes != null) {
                    classes.settle();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "relaunch-stop"));
        int status = child.waitFor();
        if (classes != null) {
            classes.settle();
        }
        return status;
    }
}
