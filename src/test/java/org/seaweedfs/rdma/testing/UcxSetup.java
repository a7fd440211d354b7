package org.seaweedfs.rdma.testing;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.seaweedfs.rdma.RoleSettings;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.ucx.UcxSettings;

/**
 * A test's UCX settings: the {@code ucx:} entries and {@code idlePollMicros} as an operator writes them, built into
 * settings by the configuration loader as {@code serve} builds them. Nothing else can be set: the configuration's
 * keys are the only UCX settings.
 *
 * @param ucxEntries      entries of the {@code ucx:} section (e.g. {@code "errorHandling: none"}); {@code tls}
 *                        defaults to {@value UcxSettings#DEFAULT_TLS} when not given
 * @param idlePollMicros  the top-level {@code idlePollMicros}, or null for its default
 */
public record UcxSetup(List<String> ucxEntries, Integer idlePollMicros) {

    public static final UcxSetup DEFAULTS = ucx();

    /** These {@code ucx:} entries, everything else the product's. */
    public static UcxSetup ucx(String... entries) {
        return new UcxSetup(List.of(entries), null);
    }

    /** These transports (UCX_TLS syntax, e.g. {@code sm,self}). */
    public static UcxSetup tls(String tls) {
        return ucx("tls: '" + tls + "'");
    }

    /** The settings of {@link #DEFAULTS}. */
    public static UcxSettings defaults() {
        return DEFAULTS.settings();
    }

    public UcxSetup idlePollMicros(int micros) {
        return new UcxSetup(ucxEntries, micros);
    }

    /**
     * The settings {@code serve} builds from these entries.
     *
     * @throws IllegalArgumentException (or the loader's ConfigException) naming a bad value
     */
    public UcxSettings settings() {
        String defaultTls = "tls: '" + UcxSettings.DEFAULT_TLS + "'";
        List<String> entries = ucxEntries.stream().anyMatch(e -> e.startsWith("tls:")) ? ucxEntries
                : Stream.concat(ucxEntries.stream(), Stream.of(defaultTls)).toList();
        String yaml = "ucx: {" + String.join(", ", entries) + "}\n"
                + (idlePollMicros == null ? "" : "idlePollMicros: " + idlePollMicros + "\n");
        return RoleSettings.ucx(ConfigLoader.parse(yaml, "test ucx", Map.of()));
    }
}
