package org.seaweedfs.rdma.ucx;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.seaweedfs.rdma.polling.IdlePoll;

/**
 * How the UCX context and worker of a {@link UcxWorkerVerticle} are set up. The configuration file's {@code ucx}
 * section has exactly the keys {@code ucx.tls}, {@code ucx.netDevices}, {@code ucx.errorHandling} and
 * {@code ucx.onDemandPaging} (validated by the config schema, documented in {@code conf/config.yaml}), and the
 * idle-poll time is the top-level {@code idlePollMicros}; the other components are set in code ({@code with...}) and
 * are not configuration keys.
 *
 * @param tls                transports UCX may use (UCX_TLS syntax; {@code ucx.tls}). Default here {@code sm,tcp,self}:
 *                           shared memory between processes of one host, TCP between hosts (UCX 1.13 also needs a
 *                           network transport for the client/server wire-up, so {@code sm} alone cannot connect),
 *                           {@code self} within one worker. Add {@code rc,ud,dc} (or use {@code all}) on RDMA hosts.
 * @param netDevices         network devices UCX may use (UCX_NET_DEVICES syntax, e.g. {@code mlx5_0:1,eth0};
 *                           {@code ucx.netDevices}); default {@code all}.
 * @param peerErrorHandling  endpoints created with peer error handling ({@code ucx.errorHandling: peer}, the
 *                           default; {@code none} turns it off), so a dead peer fails requests instead of hanging
 *                           them. Needs UCX_POSIX_ERROR_HANDLING=y and UCX_SYSV_ERROR_HANDLING=y in the environment,
 *                           without which UCX silently drops shared memory (see {@link #requiredEnvironment()}).
 * @param tcpTxSegSize       UCX_TCP_TX_SEG_SIZE in bytes, asked of the environment; emulated gets over TCP move in
 *                           fragments of this size. 0 (the default) keeps UCX's default.
 * @param tcpRxSegSize       UCX_TCP_RX_SEG_SIZE in bytes, asked of the environment, at least the TX size. 0 (the
 *                           default) keeps UCX's default.
 * @param maxFrameBytes      largest control frame sent or accepted (default 64 MiB).
 * @param connectTimeoutMs   how long {@code connect} waits for the endpoint and handshake (default 10000).
 * @param probeTransports    at start-up, ask {@code ucx_info} (if installed) which lanes UCX builds with these
 *                           settings and log them (default true).
 * @param maxRemoteKeys      remote keys one channel keeps unpacked at once (default 65536, set in code only):
 *                           a bound on native memory per peer. Each {@link UcxChannel#unpackRemoteKey} holds one
 *                           reference until {@link UcxChannel#releaseRemoteKey}; an unpack of a new key beyond the
 *                           bound fails (naming this key) rather than evicting a key a reader may still use.
 * @param onDemandPaging     register memory with {@code UcpMemMapParams.nonBlocking()} ({@code ucx.onDemandPaging}:
 *                           {@code auto}, {@code true} or {@code false}), which asks for on-demand paging where the
 *                           device supports it. InfiniBand/RoCE without it registers for write access and may refuse
 *                           the agent's read-only {@code .dat} mappings; shared memory and TCP ignore the flag.
 *                           Default ({@code auto}): follows {@code tls} — on when the list could include an RDMA
 *                           transport ({@code all}, an exclusion list {@code ^...}, or any {@code rc*}, {@code ud*},
 *                           {@code dc*}, {@code ib} entry), off otherwise; {@link #withTls} re-derives it, so call
 *                           {@link #withOnDemandPaging} after it to override.
 * @param eventLoopLanes     gets issued on a Vert.x event loop run on a UCX worker owned by that event loop (a lane per
 *                           event loop and channel), completing on the caller's thread without a hand-off to the
 *                           owner thread (default true; off in tests of the owner path). Off: every get goes through
 *                           the owner thread.
 * @param idlePollMicros     how long the owner thread and the event-loop lanes keep polling after their last event
 *                           before they sleep ({@code idlePollMicros}, {@link IdlePoll}).
 * @param extraConfig        raw UCX context settings without the UCX_ prefix (e.g. {@code RNDV_THRESH -> 64K});
 *                           applied last on the context. Transport-level keys (TCP_*, POSIX_*, RC_* ...) are ignored
 *                           there by UCX 1.13: put them in the environment.
 *
 * <p>UCX 1.13 (Debian 12) applies only context-level keys given to {@code UcpParams.setConfig}; transport and global
 * keys must come from the environment. {@link #contextConfig()} and {@link #requiredEnvironment()} split them.
 */
public record UcxSettings(String tls, String netDevices, boolean peerErrorHandling,
                          int tcpTxSegSize, int tcpRxSegSize, int maxFrameBytes, long connectTimeoutMs,
                          boolean probeTransports, int maxRemoteKeys, boolean onDemandPaging,
                          boolean eventLoopLanes, int idlePollMicros, Map<String, String> extraConfig) {

    public static final String DEFAULT_TLS = "sm,tcp,self";

    private static final Pattern TLS_LIST = Pattern.compile("\\^?[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*");
    private static final Pattern DEVICE_LIST = Pattern.compile("[A-Za-z0-9_.:\\-]+(,[A-Za-z0-9_.:\\-]+)*");
    private static final Pattern UCX_KEY = Pattern.compile("[A-Z][A-Z0-9_]*");
    private static final int MAX_SEG_SIZE = 64 << 20;
    private static final Pattern RDMA_TRANSPORT = Pattern.compile("all|ib|(rc|ud|dc)[A-Za-z0-9_]*");
    private static final Pattern SHARED_MEMORY_TRANSPORT = Pattern.compile("all|sm|shm|mm|posix|sysv|cma|knem|xpmem");
    private static final int MAX_REMOTE_KEYS = 1 << 24;

    public UcxSettings {
        Objects.requireNonNull(tls, "ucx.tls");
        Objects.requireNonNull(netDevices, "ucx.netDevices");
        Objects.requireNonNull(extraConfig, "ucx.config");
        tls = tls.strip();
        netDevices = netDevices.strip();
        require(TLS_LIST.matcher(tls).matches(),
                "ucx.tls must be a comma-separated transport list such as 'sm,tcp,self', got '" + tls + "'");
        require(DEVICE_LIST.matcher(netDevices).matches(),
                "ucx.netDevices must be 'all' or a comma-separated device list such as 'mlx5_0:1,eth0', got '"
                        + netDevices + "'");
        require(tcpTxSegSize == 0 || (tcpTxSegSize >= 1024 && tcpTxSegSize <= MAX_SEG_SIZE),
                "ucx.tcpTxSegSize must be 0 (UCX default) or 1024.." + MAX_SEG_SIZE + " bytes, got " + tcpTxSegSize);
        require(tcpRxSegSize == 0 || (tcpRxSegSize >= 1024 && tcpRxSegSize <= MAX_SEG_SIZE),
                "ucx.tcpRxSegSize must be 0 (UCX default) or 1024.." + MAX_SEG_SIZE + " bytes, got " + tcpRxSegSize);
        require(tcpRxSegSize == 0 || tcpRxSegSize >= tcpTxSegSize,
                "ucx.tcpRxSegSize (" + tcpRxSegSize + ") must not be smaller than ucx.tcpTxSegSize (" + tcpTxSegSize + ")");
        require(idlePollMicros >= 0 && idlePollMicros <= IdlePoll.MAX_MICROS,
                "idlePollMicros must be 0.." + IdlePoll.MAX_MICROS + ", got " + idlePollMicros);
        require(maxFrameBytes >= 1024, "ucx.maxFrameBytes must be at least 1024, got " + maxFrameBytes);
        require(connectTimeoutMs >= 1 && connectTimeoutMs <= 600_000,
                "ucx.connectTimeoutMs must be between 1 and 600000, got " + connectTimeoutMs);
        require(maxRemoteKeys >= 1 && maxRemoteKeys <= MAX_REMOTE_KEYS,
                "ucx.maxRemoteKeys must be between 1 and " + MAX_REMOTE_KEYS + ", got " + maxRemoteKeys);
        Map<String, String> copy = new LinkedHashMap<>();
        extraConfig.forEach((k, v) -> {
            require(k != null && UCX_KEY.matcher(k).matches() && !k.startsWith("UCX_"),
                    "ucx.config keys are UCX settings in upper case without the UCX_ prefix (e.g. RNDV_THRESH), got '"
                            + k + "'");
            require(v != null, "ucx.config." + k + " must have a value");
            copy.put(k, v);
        });
        extraConfig = Collections.unmodifiableMap(copy);
    }

    public static UcxSettings defaults() {
        return new UcxSettings(DEFAULT_TLS, "all", true, 0, 0, 64 << 20, 10_000, true, 65_536,
                mayUseRdma(DEFAULT_TLS), true, IdlePoll.DEFAULT_MICROS, Map.of());
    }

    /** Whether a UCX_TLS list could select a shared-memory transport (sm, shm, posix, sysv, cma, knem, xpmem). */
    public static boolean mayUseSharedMemory(String tls) {
        return mayUse(tls, SHARED_MEMORY_TRANSPORT);
    }

    /** Whether a UCX_TLS list could select an RDMA transport (and so wants on-demand paging by default). */
    public static boolean mayUseRdma(String tls) {
        return mayUse(tls, RDMA_TRANSPORT);
    }

    /** Whether a UCX_TLS list names a transport {@code transports} matches ("^..." excludes some: the rest stay in). */
    private static boolean mayUse(String tls, Pattern transports) {
        String list = tls.strip();
        if (list.startsWith("^")) {
            return true;
        }
        for (String name : list.split(",")) {
            if (transports.matcher(name.strip()).matches()) {
                return true;
            }
        }
        return false;
    }

    public UcxSettings withTls(String newTls) {
        return new UcxSettings(newTls, netDevices, peerErrorHandling, tcpTxSegSize, tcpRxSegSize,
                maxFrameBytes, connectTimeoutMs, probeTransports, maxRemoteKeys, mayUseRdma(newTls), eventLoopLanes, idlePollMicros, extraConfig);
    }

    public UcxSettings withNetDevices(String devices) {
        return new UcxSettings(tls, devices, peerErrorHandling, tcpTxSegSize, tcpRxSegSize,
                maxFrameBytes, connectTimeoutMs, probeTransports, maxRemoteKeys, onDemandPaging, eventLoopLanes, idlePollMicros, extraConfig);
    }

    public UcxSettings withPeerErrorHandling(boolean on) {
        return new UcxSettings(tls, netDevices, on, tcpTxSegSize, tcpRxSegSize,
                maxFrameBytes, connectTimeoutMs, probeTransports, maxRemoteKeys, onDemandPaging, eventLoopLanes, idlePollMicros, extraConfig);
    }

    public UcxSettings withProbeTransports(boolean probe) {
        return new UcxSettings(tls, netDevices, peerErrorHandling, tcpTxSegSize, tcpRxSegSize,
                maxFrameBytes, connectTimeoutMs, probe, maxRemoteKeys, onDemandPaging, eventLoopLanes, idlePollMicros, extraConfig);
    }

    public UcxSettings withMaxRemoteKeys(int max) {
        return new UcxSettings(tls, netDevices, peerErrorHandling, tcpTxSegSize, tcpRxSegSize,
                maxFrameBytes, connectTimeoutMs, probeTransports, max, onDemandPaging, eventLoopLanes, idlePollMicros, extraConfig);
    }

    public UcxSettings withOnDemandPaging(boolean on) {
        return new UcxSettings(tls, netDevices, peerErrorHandling, tcpTxSegSize, tcpRxSegSize,
                maxFrameBytes, connectTimeoutMs, probeTransports, maxRemoteKeys, on, eventLoopLanes, idlePollMicros, extraConfig);
    }

    public UcxSettings withEventLoopLanes(boolean on) {
        return new UcxSettings(tls, netDevices, peerErrorHandling, tcpTxSegSize, tcpRxSegSize,
                maxFrameBytes, connectTimeoutMs, probeTransports, maxRemoteKeys, onDemandPaging, on, idlePollMicros, extraConfig);
    }

    /** The idle-poll time of the owner thread and the lanes ({@link IdlePoll}); 0 sleeps at once. */
    public UcxSettings withIdlePollMicros(int micros) {
        return new UcxSettings(tls, netDevices, peerErrorHandling, tcpTxSegSize, tcpRxSegSize,
                maxFrameBytes, connectTimeoutMs, probeTransports, maxRemoteKeys, onDemandPaging, eventLoopLanes, micros, extraConfig);
    }

    public UcxSettings withExtraConfig(Map<String, String> extra) {
        return new UcxSettings(tls, netDevices, peerErrorHandling, tcpTxSegSize, tcpRxSegSize,
                maxFrameBytes, connectTimeoutMs, probeTransports, maxRemoteKeys, onDemandPaging, eventLoopLanes, idlePollMicros, extra);
    }

    /**
     * Settings (names without UCX_) given to the UCX context before it is created ({@code UcpParams.setConfig}):
     * the ones UCX 1.13 honours there, i.e. context-level keys, plus {@link #extraConfig}.
     */
    public Map<String, String> contextConfig() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("TLS", tls);
        config.put("NET_DEVICES", netDevices);
        // No rendezvous lanes. Gets use the endpoint's RMA lanes, and control frames (the only active messages) travel
        // in fragments over its AM lanes, whatever their size (a 4 MiB one in UcxWorkerVerticleTest). With rendezvous
        // lanes allowed, an endpoint accepted from a same-host peer keeps TCP lanes beside its shared-memory ones
        // (tcp/lo, tcp/eth0, which UCX adds for bandwidth), and a worker with a TCP lane polls its sockets (an
        // epoll_wait per interface) on every progress call: a third of a serving agent's CPU.
        // An embedding's extraConfig (below) wins.
        config.put("MAX_RNDV_LANES", "0");
        config.putAll(extraConfig);
        return config;
    }

    /**
     * Settings UCX 1.13 reads only from the process environment (as {@code UCX_<name>}): transport-level keys and
     * global ones. Set on the context they are ignored ("invalid configurations"), so the launch environment must
     * carry them; {@link UcxWorkerVerticle} warns at start-up about each one that is missing.
     */
    public Map<String, String> environmentConfig() {
        Map<String, String> config = new LinkedHashMap<>();
        if (peerErrorHandling) {
            // Without these, peer error handling silently excludes shared memory and same-host traffic uses TCP.
            config.put("POSIX_ERROR_HANDLING", "y");
            config.put("SYSV_ERROR_HANDLING", "y");
        }
        config.put("ERROR_SIGNALS", ""); // no UCX signal handlers fighting the JVM's
        if (tcpTxSegSize > 0) {
            config.put("TCP_TX_SEG_SIZE", Integer.toString(tcpTxSegSize));
        }
        if (tcpRxSegSize > 0) {
            config.put("TCP_RX_SEG_SIZE", Integer.toString(tcpRxSegSize));
        }
        return config;
    }

    /** The environment lines ({@code UCX_KEY=value}) that {@link #environmentConfig()} asks for. */
    public Map<String, String> requiredEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        environmentConfig().forEach((k, v) -> env.put("UCX_" + k, v));
        return env;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
