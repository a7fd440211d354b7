package org.seaweedfs.rdma.testing;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.seaweedfs.rdma.RoleSettings;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.ucx.UcxSettings;

/**
 * A test's UCX settings: the {@code ucx:} entries and {@code idlePollMicros} as an operator writes them, built into
 * settings by the configuration loader as {@code serve} builds them, then the components the product sets in code
 * that a test varies. The start-up transport probe is always off (tests log less).
 *
 * @param ucxEntries      entries of the {@code ucx:} section (e.g. {@code "errorHandling: none"}); {@code tls}
 *                        defaults to {@value UcxSettings#DEFAULT_TLS} when not given
 * @param idlePollMicros  the top-level {@code idlePollMicros}, or null for its default
 * @param eventLoopLanes  false: every get goes through the owner thread
 * @param maxRemoteKeys   remote keys a channel holds at once, or null for the product's bound
 * @param extraConfig     raw UCX context settings
 * @param tcpSegments     TX and RX segment sizes, or null for the product's
 */
public record UcxSetup(List<String> ucxEntries, Integer idlePollMicros, boolean eventLoopLanes, Integer maxRemoteKeys,
                       Map<String, String> extraConfig, int[] tcpSegments) {

    public static final UcxSetup DEFAULTS = ucx();

    /** These {@code ucx:} entries, everything else the product's. */
    public static UcxSetup ucx(String... entries) {
        return new UcxSetup(List.of(entries), null, true, null, Map.of(), null);
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
        return new UcxSetup(ucxEntries, micros, eventLoopLanes, maxRemoteKeys, extraConfig, tcpSegments);
    }

    /** Gets issued on an event loop go through the owner thread too (no lanes). */
    public UcxSetup ownerThreadOnly() {
        return new UcxSetup(ucxEntries, idlePollMicros, false, maxRemoteKeys, extraConfig, tcpSegments);
    }

    public UcxSetup maxRemoteKeys(int max) {
        return new UcxSetup(ucxEntries, idlePollMicros, eventLoopLanes, max, extraConfig, tcpSegments);
    }

    public UcxSetup extraConfig(Map<String, String> extra) {
        return new UcxSetup(ucxEntries, idlePollMicros, eventLoopLanes, maxRemoteKeys, extra, tcpSegments);
    }

    public UcxSetup tcpSegments(int tx, int rx) {
        return new UcxSetup(ucxEntries, idlePollMicros, eventLoopLanes, maxRemoteKeys, extraConfig, new int[] {tx, rx});
    }

    /**
     * The settings {@code serve} builds from these entries, with this setup's components set in code.
     *
     * @throws IllegalArgumentException (or the loader's ConfigException) naming a bad value
     */
    public UcxSettings settings() {
        String defaultTls = "tls: '" + UcxSettings.DEFAULT_TLS + "'";
        List<String> entries = ucxEntries.stream().anyMatch(e -> e.startsWith("tls:")) ? ucxEntries
                : Stream.concat(ucxEntries.stream(), Stream.of(defaultTls)).toList();
        String yaml = "ucx: {" + String.join(", ", entries) + "}\n"
                + (idlePollMicros == null ? "" : "idlePollMicros: " + idlePollMicros + "\n");
        UcxSettings s = RoleSettings.ucx(ConfigLoader.parse(yaml, "test ucx", Map.of()));
        return new UcxSettings(s.tls(), s.netDevices(), s.peerErrorHandling(),
                tcpSegments == null ? s.tcpTxSegSize() : tcpSegments[0],
                tcpSegments == null ? s.tcpRxSegSize() : tcpSegments[1], s.maxFrameBytes(), s.connectTimeoutMs(),
                false, maxRemoteKeys == null ? s.maxRemoteKeys() : maxRemoteKeys, s.onDemandPaging(),
                eventLoopLanes, s.idlePollMicros(), extraConfig);
    }
}
