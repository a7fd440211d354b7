package org.seaweedfs.rdma.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every configuration key a string of the product names (an error message, a log line, a null check) is a key of
 * {@link ConfigSchema} or one of its sections: an operator told to change {@code ucx.maxRemoteKeys} finds no such
 * key. The schema alone may name retired keys, to refuse them.
 */
class MessageKeysTest {

    private static final Path SOURCES = Path.of("src/main/java");
    private static final Pattern LITERAL = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");
    /** A dotted name in a configuration section, not inside a longer dotted or dashed name (a class, a file). */
    private static final Pattern KEY = Pattern.compile(
            "(?<![\\w.-])((?:agent|sidecar|http|ucx|metrics|logging|cluster)(?:\\.[A-Za-z][A-Za-z0-9]*)+)(?![\\w-])");
    /** A literal that is one lower-case dotted name alone: a meter's or a logger's name, not a message. */
    private static final Pattern METER_NAME = Pattern.compile("[a-z]+(\\.[a-z]+)+");

    @Test
    void everyKeyAStringNamesExists() throws Exception {
        Set<String> keys = ConfigSchema.KEYS.stream().map(ConfigKey::name).collect(Collectors.toSet());
        Map<String, String> unknown = new TreeMap<>();
        int named = 0;
        List<Path> files;
        try (Stream<Path> walk = Files.walk(SOURCES)) {
            files = walk.filter(f -> f.toString().endsWith(".java") && !f.endsWith("ConfigSchema.java")).toList();
        }
        for (Path file : files) {
            Matcher literal = LITERAL.matcher(Files.readString(file));
            while (literal.find()) {
                if (METER_NAME.matcher(literal.group(1)).matches()) {
                    continue;
                }
                Matcher key = KEY.matcher(literal.group(1));
                while (key.find()) {
                    named++;
                    String name = key.group(1);
                    if (!keys.contains(name) && keys.stream().noneMatch(k -> k.startsWith(name + "."))) {
                        unknown.put(name, SOURCES.relativize(file).toString());
                    }
                }
            }
        }
        assertTrue(named > 30, "the scan finds the keys messages name (" + named + ")");
        assertEquals(Map.of(), unknown, "strings name keys the schema does not have");
    }
}
