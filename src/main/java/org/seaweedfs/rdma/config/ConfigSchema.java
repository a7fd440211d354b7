package org.seaweedfs.rdma.config;

import static org.seaweedfs.rdma.config.ValueType.*;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.seaweedfs.rdma.polling.PollingPolicy;

/** Every key the configuration accepts (conf/config.yaml documents each one). */
final class ConfigSchema {

    private static final long MS_PER_HOUR = Duration.ofHours(1).toMillis();
    private static final long GIB = 1L << 30;

    static final List<ConfigKey> KEYS = List.of(
            ConfigKey.choice("roles", STRING_LIST, List.of("sidecar"), "agent", "sidecar"),
            ConfigKey.ranged("idlePollMicros", INTEGER, (long) PollingPolicy.DEFAULT_MICROS, 0,
                    PollingPolicy.MAX_MICROS),
            ConfigKey.of("http.host", STRING, "0.0.0.0"),
            // unset: by role (HttpConfig.defaultPort)
            ConfigKey.ranged("http.port", INTEGER, null, 0, 65535),
            ConfigKey.ranged("http.instances", INTEGER, (long) HttpConfig.AUTO_INSTANCES, 0, 256),
            ConfigKey.choice("http.transport", STRING, NetworkTransport.AUTO.configName(), NetworkTransport.CHOICES),
            ConfigKey.of("http.jwtReadKey", STRING, null),
            ConfigKey.of("http.tlsCert", STRING, null),
            ConfigKey.of("http.tlsKey", STRING, null),
            ConfigKey.of("http.readSliceClients", NETWORK_LIST, HttpConfig.DEFAULT_READ_SLICE_CLIENTS),
            ConfigKey.of("http.readSliceFallback", BOOLEAN, false),
            ConfigKey.ranged("http.headerTimeout", DURATION, HttpConfig.DEFAULT_HEADER_TIMEOUT, 1, MS_PER_HOUR),
            ConfigKey.ranged("http.idleTimeout", DURATION, HttpConfig.DEFAULT_IDLE_TIMEOUT, 1, MS_PER_HOUR),
            ConfigKey.ranged("http.maxConnections", INTEGER, (long) HttpConfig.DEFAULT_MAX_CONNECTIONS, 1, 1_000_000),
            ConfigKey.of("agent.listen", LISTEN_ADDRESS, HostPort.parse("0.0.0.0:18515")),
            ConfigKey.of("agent.volumeDirs", STRING_LIST, List.of()),
            ConfigKey.of("agent.offset5", BOOLEAN, false),
            ConfigKey.of("agent.authToken", STRING, null),
            ConfigKey.choice("agent.volumeMemory", STRING, "mapped", "mapped", "ucx"),
            ConfigKey.ranged("agent.volumeMemoryLimit", BYTES, 4 * GIB, 0, 1L << 46),
            ConfigKey.of("agent.indexCacheDir", STRING, null),
            ConfigKey.of("agent.volumeIdxDir", STRING, null),
            ConfigKey.of("sidecar.agents", HOST_PORT_LIST, List.of(HostPort.parse("127.0.0.1:18515"))),
            ConfigKey.of("sidecar.master", HOST_PORT, null),
            ConfigKey.of("sidecar.volumeServers", HOST_PORT_LIST, List.of()),
            ConfigKey.of("sidecar.authToken", STRING, null),
            ConfigKey.of("sidecar.securityToml", STRING, null),
            // needle data sizes are u32 on disk
            ConfigKey.ranged("sidecar.maxNeedleBytes", BYTES, 64L << 20, 1, 4 * GIB),
            ConfigKey.ranged("sidecar.bufferPool.bufferSize", BYTES, 1L << 20, 4096, 1 * GIB),
            ConfigKey.ranged("sidecar.bufferPool.totalBytes", BYTES, 256L << 20, 4096, 1024 * GIB),
            ConfigKey.ranged("sidecar.maxInFlightReads", INTEGER, 256L, 1, 65536),
            ConfigKey.ranged("sidecar.readTimeout", DURATION, Duration.ofSeconds(5), 1, MS_PER_HOUR),
            ConfigKey.ranged("sidecar.ping.interval", DURATION, Duration.ofSeconds(2), 10, MS_PER_HOUR),
            ConfigKey.ranged("sidecar.breaker.openDuration", DURATION, Duration.ofSeconds(10), 1, MS_PER_HOUR),
            ConfigKey.ranged("sidecar.locationCache.maxBytes", BYTES, 64L << 20, 64 * 1024, 1024 * GIB),
            ConfigKey.choice("sidecar.fallback", STRING_LIST, List.of("read-through", "http"), "read-through", "http"),
            ConfigKey.choice("sidecar.ecRebuild", STRING, "rdma", "rdma", "fallback"),
            ConfigKey.ranged("sidecar.batch.maxFids", INTEGER, 10_000L, 1, 1_000_000),
            ConfigKey.ranged("sidecar.batch.maxRequestBytes", BYTES, 1L << 20, 64, 1L << 30),
            ConfigKey.ranged("sidecar.batch.window", INTEGER, 32L, 1, 4096),
            ConfigKey.ranged("sidecar.batch.maxReplyBytes", BYTES, 64L << 20, 1, 4 * GIB),
            ConfigKey.of("ucx.tls", STRING_LIST, List.of()),
            ConfigKey.of("ucx.netDevices", STRING_LIST, List.of()),
            ConfigKey.choice("ucx.errorHandling", STRING, "peer", "peer", "none"),
            ConfigKey.choice("ucx.onDemandPaging", STRING, "auto", "auto", "true", "false"),
            ConfigKey.of("metrics.enabled", BOOLEAN, true),
            ConfigKey.choice("logging.level", STRING, "info", "trace", "debug", "info", "warn", "error", "off"),
            ConfigKey.choice("logging.format", STRING, "text", "text", "json"),
            ConfigKey.of("cluster.enabled", BOOLEAN, false),
            ConfigKey.of("cluster.host", STRING, "127.0.0.1"),
            ConfigKey.ranged("cluster.port", INTEGER, 5701L, 0, 65535),
            ConfigKey.of("cluster.members", HOST_PORT_LIST, List.of()));

    private static final String JAVA_OPTS_HEAP = "the JVM's heap is set where the JVM starts: JAVA_OPTS=-Xmx256m";
    private static final String FIXED_RECONNECT =
            "fixed: waits of at most 250ms for 30s after an agent is lost, then growing to 30s";

    /**
     * Keys earlier versions accepted, with what replaced each: a file that still sets one is rejected with this, not
     * silently ignored, so nobody believes a setting works that does nothing.
     */
    static final Map<String, String> REMOVED = Map.ofEntries(
            Map.entry("http.awakeMicros", "idlePollMicros keeps every event loop awake after its last event"),
            Map.entry("sidecar.eventBusAwakeMicros",
                    "idlePollMicros keeps every event loop awake after its last event"),
            Map.entry("ucx.progress", "idlePollMicros sets how long UCX threads poll before they sleep"),
            Map.entry("ucx.eventLoopLanes", "event-loop lanes are always used where UCX allows them"),
            Map.entry("ucx.maxRemoteKeys", "a fixed bound of 65536 per agent connection"),
            Map.entry("agent.pollInterval", "volume files are checked every 250ms"),
            Map.entry("agent.segmentBytes", "volumes are mapped in pieces of 1GiB"),
            Map.entry("agent.retireGrace", "replaced mappings stay registered for 10s"),
            Map.entry("agent.maxRepliesInFlight", "a fixed bound of 32 large replies per sidecar"),
            Map.entry("sidecar.eventBusInstances", "one event-bus consumer per sidecar"),
            Map.entry("sidecar.reconnect.quickBackoff", FIXED_RECONNECT),
            Map.entry("sidecar.reconnect.quickPeriod", FIXED_RECONNECT),
            Map.entry("sidecar.reconnect.baseBackoff", FIXED_RECONNECT),
            Map.entry("sidecar.reconnect.maxBackoff", FIXED_RECONNECT),
            Map.entry("sidecar.ping.timeout", "half of sidecar.ping.interval"),
            Map.entry("sidecar.breaker.failureRateThreshold", "fixed: opens at 50% failures"),
            Map.entry("sidecar.breaker.slidingWindowSize", "fixed: the last 20 calls"),
            Map.entry("sidecar.breaker.minimumCalls", "fixed: at least 10 calls"),
            Map.entry("sidecar.breaker.halfOpenCalls", "fixed: 3 trial calls"),
            Map.entry("sidecar.retry.maxAttempts", "fixed: 3 attempts"),
            Map.entry("sidecar.retry.waitDuration", "fixed: 50ms between attempts"),
            Map.entry("agent.maxHeap", JAVA_OPTS_HEAP),
            Map.entry("sidecar.maxHeap", JAVA_OPTS_HEAP),
            Map.entry("http.maxInFlight", "sidecar.maxInFlightReads bounds every read, HTTP and event bus alike"));

    /**
     * Keys earlier versions accepted under another name, with the name that replaced each: the old name is rejected
     * with the new one, so a file written for an earlier version says what to rename.
     */
    static final Map<String, String> RENAMED = Map.of("agent.indexDir", "agent.indexCacheDir");

    private static final Map<String, ConfigKey> BY_NAME = new LinkedHashMap<>();
    private static final Map<String, ConfigKey> BY_ENV = new LinkedHashMap<>();

    static {
        for (ConfigKey k : KEYS) {
            BY_NAME.put(k.name(), k);
            BY_ENV.put(k.envName(), k);
        }
    }

    private ConfigSchema() {
    }

    static Optional<ConfigKey> byName(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    static Optional<ConfigKey> byEnv(String envName) {
        return Optional.ofNullable(BY_ENV.get(envName));
    }

    /**
     * Why {@code name} (a dotted key, or its environment variable) is no longer accepted, if it once was: removed, or
     * renamed (then the message gives the new name in the same spelling).
     */
    static Optional<String> retired(String name) {
        for (Map.Entry<String, String> e : REMOVED.entrySet()) {
            if (spells(name, e.getKey())) {
                return Optional.of(name + ": this key was removed (" + e.getValue() + "); delete it");
            }
        }
        for (Map.Entry<String, String> e : RENAMED.entrySet()) {
            if (spells(name, e.getKey())) {
                String renamed = name.equals(e.getKey()) ? e.getValue() : ConfigKey.envName(e.getValue());
                return Optional.of(name + ": this key was renamed " + renamed + "; use that name");
            }
        }
        return Optional.empty();
    }

    private static boolean spells(String name, String key) {
        return key.equals(name) || ConfigKey.envName(key).equals(name);
    }

    /** True when some key, or some removed key, lives below {@code section} (e.g. "sidecar.ping"). */
    static boolean isSection(String section) {
        String prefix = section + ".";
        return KEYS.stream().anyMatch(k -> k.name().startsWith(prefix))
                || REMOVED.keySet().stream().anyMatch(k -> k.startsWith(prefix))
                || RENAMED.keySet().stream().anyMatch(k -> k.startsWith(prefix));
    }

    /** The known name closest to a misspelt one, if it is close enough to be a likely typo. */
    static Optional<String> suggest(String unknown, Iterable<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int d = distance(unknown.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return bestDistance <= Math.max(2, unknown.length() / 4) ? Optional.of(best) : Optional.empty();
    }

    /** Key and section names, for suggestions. */
    static Iterable<String> namesAndSections() {
        Set<String> all = new LinkedHashSet<>(BY_NAME.keySet());
        for (String name : BY_NAME.keySet()) {
            for (int dot = name.indexOf('.'); dot > 0; dot = name.indexOf('.', dot + 1)) {
                all.add(name.substring(0, dot));
            }
        }
        return all;
    }

    static Iterable<String> envNames() {
        return BY_ENV.keySet();
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
