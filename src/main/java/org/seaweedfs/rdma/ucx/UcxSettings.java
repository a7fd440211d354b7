package org.seaweedfs.rdma.ucx;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.seaweedfs.rdma.polling.PollingPolicy;

/**
 * How the UCX context and worker of a {@link UcxWorkerVerticle} are set up: exactly the configuration's keys
 * {@code ucx.tls}, {@code ucx.netDevices}, {@code ucx.errorHandling}, {@code ucx.onDemandPaging} and the top-level
 * {@code idlePollMicros} (validated by the config schema, documented in {@code conf/config.yaml}). Everything else is
 * one value for every process, a constant here ({@link #MAX_FRAME_BYTES}, {@link #CONNECT_TIMEOUT_MS},
 * {@link #MAX_REMOTE_KEYS}, the transport segments), so that two peers never differ in it.
 *
 * @param tls                transports UCX may use (UCX_TLS syntax; {@code ucx.tls}). Default here {@code sm,tcp,self}:
 *                           shared memory between processes of one host, TCP between hosts (UCX 1.13 also needs a
 *                           network transport for the client/server wire-up, so {@code sm} alone cannot connect),
 *                           {@code self} within one worker. Add {@code rc,ud,dc} (or use {@code all}) on RDMA hosts.
 * @param netDevices         network devices UCX may use (UCX_NET_DEVICES syntax, e.g. {@code mlx5_0:1,eth0};
 *                           {@code ucx.netDevices}); default {@code all}.
 * @param peerErrorHandling  endpoints created with peer error handling ({@code ucx.errorHandling: peer}, the
 *                           default; {@code none} turns it off), so a dead peer fails requests instead of hanging
 *                           them. Shared memory then needs its interfaces' ERROR_HANDLING=y, without which UCX
 *                           silently drops it: set on the context ({@code MM_ERROR_HANDLING}, see
 *                           {@link #contextConfig()}), so no UCX_POSIX/SYSV_ERROR_HANDLING variable is needed.
 * @param onDemandPaging     register memory with {@code UcpMemMapParams.nonBlocking()} ({@code ucx.onDemandPaging}:
 *                           {@code auto}, {@code true} or {@code false}), which asks for on-demand paging where the
 *                           device supports it. InfiniBand/RoCE without it registers for write access and may refuse
 *                           the agent's read-only {@code .dat} mappings; shared memory and TCP ignore the flag.
 *                           Default ({@code auto}): follows {@code tls} — on when the list could include an RDMA
 *                           transport ({@code all}, an exclusion list {@code ^...}, or any {@code rc*}, {@code ud*},
 *                           {@code dc*}, {@code ib} entry), off otherwise ({@link #mayUseRdma}).
 * @param idlePollMicros     how long the owner thread and the event-loop lanes keep polling after their last event
 *                           before they sleep ({@code idlePollMicros}, {@link PollingPolicy}).
 *
 * <p>UCX 1.13 (Debian 12) applies {@code UcpParams.setConfig} keys to the context and, when a key is no context key,
 * to every transport interface whose table has it (its own name, or {@code MM_...} for posix and sysv), overriding
 * the environment; global keys such as {@code ERROR_SIGNALS} come from the environment only, which
 * {@link UcxEnvironment} sets before UCX loads.
 */
public record UcxSettings(String tls, String netDevices, boolean peerErrorHandling, boolean onDemandPaging,
                          int idlePollMicros) {

    public static final String DEFAULT_TLS = "sm,tcp,self";

    /**
     * Largest message a channel sends or accepts: a bound on what a peer can make this process buffer. The control
     * protocol's frames (4 MiB, {@code ControlCodec.DEFAULT_MAX_FRAME_BYTES}) stay below it.
     */
    public static final int MAX_FRAME_BYTES = 64 << 20;

    /** How long {@code connect} waits for the endpoint and the handshake: a live peer answers in milliseconds. */
    public static final long CONNECT_TIMEOUT_MS = 10_000;

    /**
     * Remote keys one channel keeps unpacked at once: a bound on native memory per peer (a sidecar holds one key per
     * served segment of the agent, far fewer). Each {@link UcxChannel#unpackRemoteKey} holds one reference until
     * {@link UcxChannel#releaseRemoteKey}; an unpack of a new key beyond the bound fails rather than evicting a key a
     * reader may still use.
     */
    public static final int MAX_REMOTE_KEYS = 65_536;

    /**
     * TCP segment of every context (both directions). Emulated gets over TCP move in TX-sized fragments: 256 KiB
     * ones move a 1 MiB get in 4 fragments instead of 128, about twice as fast (CHANGELOG.md).
     */
    public static final int TCP_SEG_SIZE = 256 << 10;

    /**
     * Shared-memory (posix, sysv) segment of every context (UCX's default 8256). 32 KiB fragments take a 1 MiB read in
     * 32 and spare the agent two fifths of its CPU per read. Not 64 KiB: UCX 1.13 keeps a fragment's length in 16
     * bits, and a 64 KiB one arrives as length 0 (UCX asserts and the process aborts).
     */
    public static final int SHARED_MEMORY_SEG_SIZE = 32 << 10;

    /** Shared-memory receive FIFO: UCX 1.13's defaults, set so that no environment can make two peers differ. */
    static final int SHARED_MEMORY_FIFO_SIZE = 64;
    static final int SHARED_MEMORY_FIFO_ELEM_SIZE = 128;

    /**
     * The settings two peers must share: their names in {@link #peerSettings()} and the context keys that set them.
     * Measured on UCX 1.13.1 (PeerSettingsEndToEndTest, docs/protocol.md): a TCP receiver whose RX segment is smaller
     * than its peer's aborts in tcp_ep.c (assertion "hdr->length <= rx_seg_size") when the peer sends a fragment as
     * large as its own segment; a shared-memory sender writes fragments of its own SEG_SIZE into the receiver's
     * buffers (the receiver aborts in ucp_am.c, or reads garbage); FIFO sizes that differ hang the connection. TX
     * segments may differ: each side's is at most its own RX, which UCX checks.
     */
    private static final Map<String, String> PEER_SETTINGS = orderedMap(
            "TCP_RX_SEG_SIZE", "RX_SEG_SIZE", "MM_SEG_SIZE", "MM_SEG_SIZE", "MM_FIFO_SIZE", "MM_FIFO_SIZE",
            "MM_FIFO_ELEM_SIZE", "MM_FIFO_ELEM_SIZE");

    /** The environment variables each transport key of {@link #contextConfig()} overrides. */
    private static final Map<String, List<String>> OVERRIDDEN_ENVIRONMENT = Map.of(
            "TX_SEG_SIZE", List.of("UCX_TCP_TX_SEG_SIZE"),
            "RX_SEG_SIZE", List.of("UCX_TCP_RX_SEG_SIZE"),
            "MM_SEG_SIZE", sharedMemoryVariables("SEG_SIZE"),
            "MM_FIFO_SIZE", sharedMemoryVariables("FIFO_SIZE"),
            "MM_FIFO_ELEM_SIZE", sharedMemoryVariables("FIFO_ELEM_SIZE"),
            "MM_ERROR_HANDLING", sharedMemoryVariables("ERROR_HANDLING"));

    private static List<String> sharedMemoryVariables(String name) {
        return List.of("UCX_MM_" + name, "UCX_POSIX_" + name, "UCX_SYSV_" + name);
    }

    private static Map<String, String> orderedMap(String... pairs) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return Collections.unmodifiableMap(map);
    }

    private static final Pattern TLS_LIST = Pattern.compile("\\^?[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*");
    private static final Pattern DEVICE_LIST = Pattern.compile("[A-Za-z0-9_.:\\-]+(,[A-Za-z0-9_.:\\-]+)*");
    private static final Pattern RDMA_TRANSPORT = Pattern.compile("all|ib|(rc|ud|dc)[A-Za-z0-9_]*");
    private static final Pattern SHARED_MEMORY_TRANSPORT = Pattern.compile("all|sm|shm|mm|posix|sysv|cma|knem|xpmem");
    /** Transports whose interfaces read the MM_* keys (posix, sysv) and the TCP ones. */
    private static final Pattern MM_TRANSPORT = Pattern.compile("all|sm|shm|mm|posix|sysv");
    private static final Pattern TCP_TRANSPORT = Pattern.compile("all|tcp");
    private static final Pattern MEMORY_UNITS = Pattern.compile("(\\d+)\\s*([kmg]?)b?", Pattern.CASE_INSENSITIVE);

    public UcxSettings {
        Objects.requireNonNull(tls, "ucx.tls");
        Objects.requireNonNull(netDevices, "ucx.netDevices");
        tls = tls.strip();
        netDevices = netDevices.strip();
        require(TLS_LIST.matcher(tls).matches(),
                "ucx.tls must be a comma-separated transport list such as 'sm,tcp,self', got '" + tls + "'");
        require(DEVICE_LIST.matcher(netDevices).matches(),
                "ucx.netDevices must be 'all' or a comma-separated device list such as 'mlx5_0:1,eth0', got '"
                        + netDevices + "'");
        require(idlePollMicros >= 0 && idlePollMicros <= PollingPolicy.MAX_MICROS,
                "idlePollMicros must be 0.." + PollingPolicy.MAX_MICROS + ", got " + idlePollMicros);
    }

    /** The product's settings over {@link #DEFAULT_TLS} ({@code sm,tcp,self}), UCX's network devices. */
    public static UcxSettings defaults() {
        return new UcxSettings(DEFAULT_TLS, "all", true, mayUseRdma(DEFAULT_TLS), PollingPolicy.DEFAULT_MICROS);
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
        return names(list, transports);
    }

    /** Whether the list (an exclusion list too) names a transport {@code transports} matches. */
    private static boolean names(String list, Pattern transports) {
        for (String name : list.replace("^", "").split(",")) {
            if (transports.matcher(name.strip()).matches()) {
                return true;
            }
        }
        return false;
    }

    /** Whether a UCX_TLS list leaves in a transport {@code transports} matches, whose keys UCX then uses. */
    private static boolean opens(String tls, Pattern transports) {
        String list = tls.strip();
        return list.startsWith("^") ? !names(list, transports) : names(list, transports);
    }

    /**
     * Settings (names without UCX_) given to the UCX context before it is created ({@code UcpParams.setConfig}):
     * the context-level keys UCX 1.13 honours there and the transport keys every process sets alike.
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
        config.put("MAX_RNDV_LANES", "0");
        // Transport settings on the context, not in the environment: every process that uses this library then has
        // the same (peers must agree, see peerSettings), whatever its environment. Only for transports the TLS list
        // leaves in: UCX warns ("invalid configuration") about a key no interface used.
        if (opens(tls, TCP_TRANSPORT)) {
            config.put("TX_SEG_SIZE", Integer.toString(TCP_SEG_SIZE));
            config.put("RX_SEG_SIZE", Integer.toString(TCP_SEG_SIZE));
        }
        if (opens(tls, MM_TRANSPORT)) {
            config.put("MM_SEG_SIZE", Integer.toString(SHARED_MEMORY_SEG_SIZE));
            config.put("MM_FIFO_SIZE", Integer.toString(SHARED_MEMORY_FIFO_SIZE));
            config.put("MM_FIFO_ELEM_SIZE", Integer.toString(SHARED_MEMORY_FIFO_ELEM_SIZE));
            if (peerErrorHandling) {
                // Without it peer error handling excludes shared memory, and same-host traffic uses TCP.
                config.put("MM_ERROR_HANDLING", "y");
            }
        }
        return config;
    }

    /**
     * The settings a peer must share with this process, by name ({@code TCP_RX_SEG_SIZE}, {@code MM_SEG_SIZE},
     * {@code MM_FIFO_SIZE}, {@code MM_FIFO_ELEM_SIZE}), in bytes or entries: the values every context of this library
     * sets. Listed whether or not {@link #tls} opens the transport, so two peers
     * compare equal unless a value differs. The agent sends them in its {@code HelloOk}; a sidecar refuses an agent
     * whose values differ before any large frame (docs/protocol.md).
     */
    public Map<String, Long> peerSettings() {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("RX_SEG_SIZE", Integer.toString(TCP_SEG_SIZE));
        values.put("MM_SEG_SIZE", Integer.toString(SHARED_MEMORY_SEG_SIZE));
        values.put("MM_FIFO_SIZE", Integer.toString(SHARED_MEMORY_FIFO_SIZE));
        values.put("MM_FIFO_ELEM_SIZE", Integer.toString(SHARED_MEMORY_FIFO_ELEM_SIZE));
        Map<String, Long> settings = new LinkedHashMap<>();
        PEER_SETTINGS.forEach((name, key) -> settings.put(name, memoryUnits(values.get(key))));
        return Collections.unmodifiableMap(settings);
    }

    /**
     * Where {@code peer}'s settings differ from {@link #peerSettings()}: one "NAME peer's there, ours here" item per
     * setting either side lists with another value (or only one side lists); empty when they agree.
     */
    public List<String> peerSettingDifferences(Map<String, Long> peer) {
        Map<String, Long> ours = peerSettings();
        java.util.Set<String> names = new java.util.TreeSet<>(ours.keySet());
        names.addAll(peer.keySet());
        List<String> differences = new java.util.ArrayList<>();
        for (String name : names) {
            Long theirs = peer.get(name);
            Long mine = ours.get(name);
            if (!Objects.equals(theirs, mine)) {
                differences.add(name + " " + (theirs == null ? "not set" : theirs) + " there, "
                        + (mine == null ? "not set" : mine) + " here");
            }
        }
        return differences;
    }

    /**
     * UCX_* variables of {@code environment} that a key of {@link #contextConfig()} overrides with another value, one
     * operator-readable line each: the context's keys win, so such a variable has no effect.
     */
    public List<String> overriddenEnvironment(Map<String, String> environment) {
        Map<String, String> config = contextConfig();
        List<String> lines = new java.util.ArrayList<>();
        OVERRIDDEN_ENVIRONMENT.forEach((key, names) -> {
            String ours = config.get(key);
            if (ours == null) {
                return;
            }
            for (String name : names) {
                String theirs = environment.get(name);
                if (theirs != null && !sameValue(theirs, ours)) {
                    lines.add(name + "=" + theirs + " in the environment has no effect: this library sets " + key
                            + "=" + ours + " on every UCX context (UCX's context settings win over the environment)"
                            + (PEER_SETTINGS.containsValue(key) ? ", because peers must agree on it" : ""));
                }
            }
        });
        return lines;
    }

    private static boolean sameValue(String a, String b) {
        long x = memoryUnits(a);
        return x >= 0 ? x == memoryUnits(b) : a.strip().equalsIgnoreCase(b.strip());
    }

    /** UCX's memory units ({@code 65536}, {@code 64k}, {@code 64KB}, {@code 1m}) in bytes, or -1. */
    static long memoryUnits(String value) {
        java.util.regex.Matcher m = MEMORY_UNITS.matcher(value == null ? "" : value.strip());
        if (!m.matches()) {
            return -1;
        }
        int shift = switch (m.group(2).toLowerCase(java.util.Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
        };
        try {
            long number = Long.parseLong(m.group(1));
            return number > (Long.MAX_VALUE >> shift) ? -1 : number << shift;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
