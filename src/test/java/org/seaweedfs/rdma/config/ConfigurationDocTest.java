package org.seaweedfs.rdma.config;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md names exactly the keys of {@link ConfigSchema}, with their defaults and choices, so a key
 * added, removed or changed in the schema fails here until the document says so.
 */
class ConfigurationDocTest {

    private static final Path DOC = Path.of("docs/configuration.md");
    /** A key's row: | `name` | default | values | what it does | */
    private static final Pattern ROW = Pattern.compile("^\\| `([A-Za-z0-9.]+)` \\| ([^|]+) \\| ([^|]+) \\|");
    private static final String UNSET = "unset";

    private record Row(String key, String defaultCell, String valuesCell) {
    }

    private static Map<String, Row> rows() throws Exception {
        Map<String, Row> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(DOC)) {
            Matcher m = ROW.matcher(line);
            if (m.find()) {
                Row row = new Row(m.group(1), m.group(2).strip(), m.group(3).strip());
                assertNull(rows.put(row.key(), row), row.key() + " has two rows in " + DOC);
            }
        }
        return rows;
    }

    @Test
    void documentsEveryKeyOfTheSchemaAndNoOther() throws Exception {
        Set<String> documented = rows().keySet();
        Set<String> schema = ConfigSchema.KEYS.stream().map(ConfigKey::name).collect(Collectors.toSet());
        Set<String> missing = new TreeSet<>(schema);
        missing.removeAll(documented);
        Set<String> unknown = new TreeSet<>(documented);
        unknown.removeAll(schema);
        assertTrue(missing.isEmpty(), "keys of ConfigSchema missing from " + DOC + ": " + missing);
        assertTrue(unknown.isEmpty(), DOC + " documents keys ConfigSchema does not have: " + unknown);
    }

    @Test
    void documentedDefaultsAreTheLoadersDefaults() throws Exception {
        RdmaConfig defaults = ConfigLoader.parse("", "defaults", Map.of());
        for (Row row : rows().values()) {
            ConfigKey key = ConfigSchema.byName(row.key()).orElse(null);
            if (key == null) {
                continue; // reported by the test above
            }
            if (row.defaultCell().equals(UNSET)) {
                assertNull(key.defaultValue(), row.key() + ": " + DOC + " says unset, the schema has a default");
                continue;
            }
            String value = unquote(row.defaultCell());
            String yaml = nested(row.key(), value);
            RdmaConfig written = ConfigLoader.parse(yaml, DOC + " " + row.key(), Map.of());
            assertEquals(defaults, written, row.key() + ": the default " + value + " in " + DOC
                    + " is not the loader's default");
        }
    }

    @Test
    void documentsEveryChoice() throws Exception {
        for (Row row : rows().values()) {
            ConfigKey key = ConfigSchema.byName(row.key()).orElse(null);
            if (key == null) {
                continue;
            }
            for (String choice : key.choices()) {
                assertTrue(row.valuesCell().contains("`" + choice + "`"),
                        row.key() + ": the choice " + choice + " is not listed in " + DOC);
            }
        }
    }

    private static String unquote(String cell) {
        assertTrue(cell.startsWith("`") && cell.endsWith("`"), "a default is written `like this`: " + cell);
        return cell.substring(1, cell.length() - 1);
    }

    /** {@code a.b.c} and {@code v} as block YAML: a:\n  b:\n    c: v */
    private static String nested(String dotted, String value) {
        String[] parts = dotted.split("\\.");
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < parts.length; i++) {
            String indent = "  ".repeat(i);
            lines.add(indent + parts[i] + ":" + (i == parts.length - 1 ? " " + value : ""));
        }
        return String.join("\n", lines) + "\n";
    }
}
