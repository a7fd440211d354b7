package org.seaweedfs.rdma.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hosts on one machine: a Linux network namespace per host, each with one address on a bridge of the run's own
 * (root only). The twin of {@code bench/lib/netns.sh}: the same names and owner files, so either cleans up what the
 * other left when its owner died.
 *
 * <p>Each run gets a random tag (5 hex digits) and names everything after it: namespace {@code swr-TAG-HOST}, bridge
 * {@code swrTAG}, the bridge's end of host i's veth {@code swrTAGvI} (the host's end is {@code eth0} inside). Hosts
 * have 192.0.2.11, .12, ... (RFC 5737) only inside their namespaces; the root namespace gets no address, because the
 * machine's own network may be that range too, and runs side by side never meet. {@code /run/seaweedfs-rdma-netns/TAG}
 * names the owner ("PID STARTTIME"); a run whose owner is gone is removed by the next one ({@link #reap}).
 * Partitions are nft rules in a host's own namespace (table {@code inet swr}), gone with it.
 */
public final class NetnsCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NetnsCluster.class);
    static final Path STATE = Path.of("/run/seaweedfs-rdma-netns");
    private static final int FIRST_HOST = 11;

    private final String tag;
    private final Map<String, Integer> hosts = new LinkedHashMap<>();
    private final Thread shutdownHook;
    private boolean closed;

    private NetnsCluster(String tag) {
        this.tag = tag;
        this.shutdownHook = new Thread(() -> remove(tag), "netns-cleanup-" + tag);
    }

    /** Why hosts cannot be made on this machine, or empty when they can. */
    public static Optional<String> unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("network namespaces need root (user is " + System.getProperty("user.name") + ")");
        }
        for (String tool : List.of("ip", "nft")) {
            if (run(List.of("sh", "-c", "command -v " + tool)).status != 0) {
                return Optional.of(tool + " is not installed (Debian: apt-get install -y iproute2 nftables)");
            }
        }
        String probe = "swr-probe-" + ProcessHandle.current().pid();
        Result add = run(List.of("ip", "netns", "add", probe));
        if (add.status != 0) {
            return Optional.of("ip netns add fails here: " + add.err.strip());
        }
        run(List.of("ip", "netns", "del", probe));
        return Optional.empty();
    }

    /** Makes the hosts, each named {@code names[i]} with address 192.0.2.(11 + i). */
    public static NetnsCluster create(String... names) {
        reap();
        NetnsCluster cluster = null;
        while (cluster == null) {
            byte[] random = new byte[3];
            new SecureRandom().nextBytes(random);
            String tag = HexFormat.of().formatHex(random).substring(0, 5);
            try {
                Files.createDirectories(STATE);
                Files.writeString(STATE.resolve(tag), ownerLine(ProcessHandle.current().pid()),
                        java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE);
                cluster = new NetnsCluster(tag);
            } catch (FileAlreadyExistsException e) {
                // another run drew the same tag: draw again
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            cluster.build(names);
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    private void build(String... names) {
        String bridge = "swr" + tag;
        must("ip", "link", "add", bridge, "type", "bridge");
        must("ip", "link", "set", bridge, "up");
        for (String name : names) {
            int i = hosts.size() + 1;
            hosts.put(name, i);
            String ns = namespace(name);
            String outer = "swr" + tag + "v" + i;
            String inner = "swr" + tag + "p" + i;
            must("ip", "netns", "add", ns);
            must("ip", "link", "add", outer, "type", "veth", "peer", "name", inner);
            must("ip", "link", "set", outer, "master", bridge, "up");
            must("ip", "link", "set", inner, "netns", ns);
            must("ip", "-n", ns, "link", "set", inner, "name", "eth0");
            must("ip", "-n", ns, "addr", "add", ip(name) + "/24", "dev", "eth0");
            must("ip", "-n", ns, "link", "set", "eth0", "up");
            must("ip", "-n", ns, "link", "set", "lo", "up");
            must("ip", "netns", "exec", ns, "nft", "add table inet swr; "
                    + "add chain inet swr in { type filter hook input priority 0; }; "
                    + "add chain inet swr out { type filter hook output priority 0; }");
        }
        LOG.info("Hosts {} in namespaces swr-{}-*", addresses(), tag);
    }

    public String tag() {
        return tag;
    }

    /** Host name -> address, in the order they were made. */
    public Map<String, String> addresses() {
        Map<String, String> out = new LinkedHashMap<>();
        hosts.keySet().forEach(h -> out.put(h, ip(h)));
        return out;
    }

    public String ip(String host) {
        return "192.0.2." + (FIRST_HOST - 1 + index(host));
    }

    public String namespace(String host) {
        index(host);
        return "swr-" + tag + "-" + host;
    }

    /** {@code command} to run on {@code host}. */
    public List<String> on(String host, List<String> command) {
        List<String> out = new ArrayList<>(List.of("ip", "netns", "exec", namespace(host)));
        out.addAll(command);
        return out;
    }

    /** Pulls {@code host}'s cable (true) or plugs it back (false): its veth's bridge end goes down or up. */
    public void cut(String host, boolean cut) {
        must("ip", "link", "set", "swr" + tag + "v" + index(host), cut ? "down" : "up");
    }

    /** {@code host} drops every packet to and from {@code peer} (a partition of that pair only), or stops. */
    public void block(String host, String peer, boolean block) {
        String ns = namespace(host);
        if (block) {
            must("ip", "netns", "exec", ns, "nft", "add rule inet swr in ip saddr " + ip(peer) + " drop comment \""
                    + peer + "\"; add rule inet swr out ip daddr " + ip(peer) + " drop comment \"" + peer + "\"");
            return;
        }
        for (String chain : List.of("in", "out")) {
            for (String line : must("ip", "netns", "exec", ns, "nft", "-a", "list", "chain", "inet", "swr", chain)
                    .split("\n")) {
                if (line.contains("comment \"" + peer + "\"")) {
                    String handle = line.substring(line.lastIndexOf("# handle ") + 9).strip();
                    must("ip", "netns", "exec", ns, "nft", "delete", "rule", "inet", "swr", chain, "handle", handle);
                }
            }
        }
    }

    private int index(String host) {
        Integer i = hosts.get(host);
        if (i == null) {
            throw new IllegalArgumentException("no host " + host + " in " + hosts.keySet());
        }
        return i;
    }

    /** Kills every process left on the hosts, removes the hosts and the bridge. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        remove(tag);
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs remove again, harmlessly
        }
    }

    /** Removes the runs whose owner process is gone (crashed or killed runs of the tests or the drill). */
    public static void reap() {
        if (!Files.isDirectory(STATE)) {
            return;
        }
        try (DirectoryStream<Path> owners = Files.newDirectoryStream(STATE)) {
            for (Path owner : owners) {
                String[] line = Files.readString(owner).strip().split("\\s+");
                boolean alive = line.length == 2 && line[0].matches("\\d+")
                        && line[1].equals(startTime(Long.parseLong(line[0])));
                if (!alive) {
                    LOG.info("Removing hosts of run {}: its owner ({}) is gone", owner.getFileName(),
                            String.join(" ", line));
                    remove(owner.getFileName().toString());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void remove(String tag) {
        for (String line : run(List.of("ip", "netns", "list")).out.split("\n")) {
            String ns = line.split(" ")[0];
            if (!ns.startsWith("swr-" + tag + "-")) {
                continue;
            }
            for (String pid : run(List.of("ip", "netns", "pids", ns)).out.split("\\s+")) {
                if (pid.matches("\\d+")) {
                    ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
            run(List.of("ip", "netns", "del", ns));
        }
        for (String line : run(List.of("ip", "-o", "link", "show")).out.split("\n")) {
            String[] parts = line.split(": ");
            if (parts.length > 1 && parts[1].startsWith("swr" + tag)) {
                run(List.of("ip", "link", "del", parts[1].replaceFirst("@.*", "")));
            }
        }
        try {
            Files.deleteIfExists(STATE.resolve(tag));
        } catch (IOException e) {
            LOG.warn("Could not remove {}: {}", STATE.resolve(tag), e.toString());
        }
    }

    private static String ownerLine(long pid) {
        return pid + " " + startTime(pid) + "\n";
    }

    /** Field 22 of /proc/PID/stat (start time in clock ticks): with the pid, names a process for good. */
    static String startTime(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(") ") + 2).split(" ")[19];
        } catch (IOException e) {
            return "";
        }
    }

    private static String must(String... command) {
        Result r = run(List.of(command));
        if (r.status != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed (" + r.status + "): " + r.err.strip());
        }
        return r.out;
    }

    private record Result(int status, String out, String err) {
    }

    private static Result run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            byte[] err = p.getErrorStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, "", "timed out");
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8),
                    new String(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Result(-1, "", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "", "interrupted");
        }
    }
}
