package org.seaweedfs.rdma.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The configuration file (and its environment variables) is the one source of settings: the main code reads no JVM
 * property of its own, and every key a message of the main code names is one the schema knows, so an operator who
 * follows a message finds the key in conf/config.yaml (or is told what replaced it).
 */
class SettingsSourcesTest {

    private static final Path MAIN = Path.of("src/main/java");
    private static final Path SCHEMA = Path.of("org/seaweedfs/rdma/config/ConfigSchema.java");
    /** A string literal, as written in the source (escapes included). */
    private static final Pattern LITERAL = Pattern.compile("\"((?:[^\"\\\\\\n]|\\\\.)*)\"");
    /** A dotted key under one of the schema's sections, not part of a longer dotted name. */
    private static final Pattern KEY = Pattern.compile(
            "(?<![\\w.$/{-])((?:agent|sidecar|ucx|http|metrics|logging|cluster)(?:\\.[a-z][A-Za-z0-9]*)+)(?![\\w(-])");
    private static final Pattern PROPERTY_READ = Pattern.compile(
            "System\\.getProperty\\(\\s*([^,)]+)|(Boolean\\.getBoolean|Integer\\.getInteger|Long\\.getLong)\\(");
    /** The JDK's and the logging libraries' properties: never one that sets this product up. */
    private static final Set<String> FOREIGN_PROPERTIES = Set.of("\"java.io.tmpdir\"", "\"java.vendor\"",
            "\"logback.configurationFile\"", "VERTX_LOGGER_PROPERTY");

    @Test
    void everyKeyAMessageNamesExists() throws IOException {
        List<String> unknown = new ArrayList<>();
        forEachSource((file, text) -> {
            Matcher literal = LITERAL.matcher(text);
            while (literal.find()) {
                Matcher key = KEY.matcher(literal.group(1));
                while (key.find()) {
                    String name = key.group(1);
                    // only the schema names a removed or renamed key, to say what replaced it
                    boolean retired = file.equals(SCHEMA) && ConfigSchema.retired(name).isPresent();
                    if (ConfigSchema.byName(name).isEmpty() && !ConfigSchema.isSection(name) && !retired) {
                        unknown.add(file + ": " + name);
                    }
                }
            }
        });
        assertEquals(List.of(), unknown, "keys named in messages that the schema does not know");
    }

    @Test
    void theMainCodeReadsNoPropertyOfItsOwn() throws IOException {
        List<String> reads = new ArrayList<>();
        forEachSource((file, text) -> {
            Matcher read = PROPERTY_READ.matcher(text);
            while (read.find()) {
                if (read.group(2) != null || !FOREIGN_PROPERTIES.contains(read.group(1).strip())) {
                    reads.add(file + ": " + read.group());
                }
            }
        });
        assertEquals(List.of(), reads, "settings come from the configuration file, not JVM properties");
    }

    private interface SourceVisitor {
        void visit(Path file, String text) throws IOException;
    }

    private static void forEachSource(SourceVisitor visitor) throws IOException {
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                visitor.visit(MAIN.relativize(file), Files.readString(file));
            }
        }
    }
}
