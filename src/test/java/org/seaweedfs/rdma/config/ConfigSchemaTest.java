package org.seaweedfs.rdma.config;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.reflect.RecordComponent;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The settings records are the schema: every field of {@link RdmaConfig}, down through its sections, is set from one
 * key, and every key sets one field. A fixed value kept as a field (settable by code only) fails here.
 */
class ConfigSchemaTest {

    /** A dotted key named in a message, e.g. {@code sidecar.ping.interval}. */
    private static final Pattern DOTTED_KEY = Pattern.compile("\\b[a-z][A-Za-z0-9]*(\\.[a-z][A-Za-z0-9]*)+\\b");

    @Test
    void everySettingsFieldIsAKeyAndEveryKeyAField() {
        Map<String, String> fieldsByKey = new TreeMap<>();
        collect(RdmaConfig.class, "", fieldsByKey);
        Map<String, String> keys = new TreeMap<>();
        ConfigSchema.KEYS.forEach(k -> keys.put(spelling(k.name()), k.name()));
        Set<String> withoutKey = new TreeSet<>();
        fieldsByKey.forEach((spelling, field) -> {
            if (!keys.containsKey(spelling)) {
                withoutKey.add(field);
            }
        });
        assertEquals(Set.of(), withoutKey, "settings fields no key sets");
        Set<String> withoutField = new TreeSet<>();
        keys.forEach((spelling, key) -> {
            if (!fieldsByKey.containsKey(spelling)) {
                withoutField.add(key);
            }
        });
        assertEquals(Set.of(), withoutField, "keys no settings field holds");
    }

    @Test
    void retiredKeysAreNotKeysAndTheirMessagesNameOnlyKeysThatExist() {
        for (Map.Entry<String, String> e : ConfigSchema.REMOVED.entrySet()) {
            assertTrue(ConfigSchema.byName(e.getKey()).isEmpty(), e.getKey() + " is both removed and a key");
            Matcher named = DOTTED_KEY.matcher(e.getValue());
            while (named.find()) {
                assertTrue(ConfigSchema.byName(named.group()).isPresent(),
                        e.getKey() + "'s message names " + named.group() + ", which is no key");
            }
        }
        ConfigSchema.RENAMED.forEach((old, renamed) -> {
            assertTrue(ConfigSchema.byName(old).isEmpty(), old + " is both renamed and a key");
            assertTrue(ConfigSchema.byName(renamed).isPresent(), old + " is renamed to " + renamed + ", no key");
        });
    }

    /** The fields of {@code type} (a settings record), by the spelling of the key each should be set from. */
    private static void collect(Class<?> type, String prefix, Map<String, String> fieldsByKey) {
        for (RecordComponent c : type.getRecordComponents()) {
            String path = prefix + c.getName();
            if (isSection(c.getType())) {
                collect(c.getType(), path + ".", fieldsByKey);
            } else {
                assertNull(fieldsByKey.put(spelling(path), path), "two fields spell " + path);
            }
        }
    }

    /**
     * A section of keys: a {@code ...Config} record, or a record nested in one (e.g. {@code sidecar.ping}); values
     * such as {@link HostPort} are not.
     */
    private static boolean isSection(Class<?> type) {
        return type.isRecord() && type.getPackage() == RdmaConfig.class.getPackage()
                && (type.getSimpleName().endsWith("Config")
                || type.getEnclosingClass() != null && type.getEnclosingClass().getSimpleName().endsWith("Config"));
    }

    /** {@code locationCacheMaxBytes} is set from {@code locationCache.maxBytes}: dots and case do not matter. */
    private static String spelling(String path) {
        return path.replace(".", "").toLowerCase(Locale.ROOT);
    }

    @Test
    void theSpellingRuleTellsKeysApart() {
        assertEquals(ConfigSchema.KEYS.size(),
                ConfigSchema.KEYS.stream().map(k -> spelling(k.name())).distinct().count(), "two keys spelt alike");
    }
}
