package org.seaweedfs.rdma.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JVM of the tests' class path on one host of a {@link NetnsCluster} ({@code ip netns exec} execs it, so the
 * process is the JVM itself), its stdout and stderr in one log file. {@link #serve} runs the product's
 * {@code serve --conf} as the jar would (the same main class, the classes Maven compiled).
 */
public final class HostProcess implements AutoCloseable {

    private static final Pattern AGENT_PORT = Pattern.compile("agent on ucx://127\\.0\\.0\\.1:(\\d+)");

    /**
     * {@code UCX_LOG_LEVEL=info} logs the lanes of every endpoint ({@code ep_cfg[..]: rma_am(tcp/eth0) ...}): the
     * transports UCX chose. {@code serve} sets the variables it needs itself.
     */
    public static final Map<String, String> UCX_ENV = Map.of("UCX_LOG_LEVEL", "info");

    public final String host;
    public final Path log;
    private final Process process;

    private HostProcess(String host, Path log, Process process) {
        this.host = host;
        this.log = log;
        this.process = process;
    }

    /** {@code serve --conf} of {@code yaml} (written to DIR/NAME.yaml) on {@code host}; logs to DIR/NAME.log. */
    public static HostProcess serve(NetnsCluster cluster, String host, Path dir, String name, String yaml) {
        Path conf = dir.resolve(name + ".yaml");
        try {
            Files.writeString(conf, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return java(cluster, host, dir.resolve(name + ".log"), "org.seaweedfs.rdma.cli.Main",
                List.of("serve", "--conf", conf.toString()));
    }

    /** {@code serve --conf} of {@code yaml} (written to DIR/NAME.yaml) on this host; logs to DIR/NAME.log. */
    public static HostProcess serve(Path dir, String name, String yaml) {
        return serve(null, "localhost", dir, name, yaml);
    }

    /**
     * {@code mainClass} with {@code args} on {@code host} (this host when {@code cluster} is null), a 256 MiB heap,
     * logging to {@code log}.
     */
    public static HostProcess java(NetnsCluster cluster, String host, Path log, String mainClass, List<String> args) {
        List<String> command = command(mainClass);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(cluster == null ? command : cluster.on(host, command))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(UCX_ENV);
        try {
            return new HostProcess(host, log, builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A JVM of the tests' class path running {@code mainClass}: a small heap, quick to start (these processes are
     * checked, not measured), with the JDK internals Hazelcast uses open as the jar's manifest opens them.
     */
    static List<String> command(String mainClass) {
        return new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens", "java.management/sun.management=ALL-UNNAMED",
                "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED",
                "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED", "-cp", classPath(), mainClass));
    }

    /**
     * The test JVM's class path as a list of entries: surefire names it in {@code surefire.test.class.path} (its own
     * {@code java.class.path} may be a manifest-only jar, which works too).
     */
    static String classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp == null || cp.isBlank() ? System.getProperty("java.class.path") : cp;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the ready line of an agent on 127.0.0.1 and returns its UCX port. */
    public int awaitAgentPort() {
        String line = awaitLine("ready:");
        Matcher port = AGENT_PORT.matcher(line);
        if (!port.find()) {
            throw new IllegalStateException(host + "'s ready line names no agent on ucx://127.0.0.1: " + line);
        }
        return Integer.parseInt(port.group(1));
    }

    /** Waits for a log line starting with {@code prefix} (e.g. "ready:"), failing early when the process died. */
    public String awaitLine(String prefix) {
        return Await.until(host + " logs a line starting with '" + prefix + "'", () -> {
            String line = lines().stream().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
            if (line == null && !process.isAlive()) {
                throw new AssertionError(host + " exited (" + process.exitValue() + ") before '" + prefix + "':\n"
                        + tail(40));
            }
            return line;
        }, line -> line != null, Duration.ofSeconds(120));
    }

    /** The log's lines so far. */
    public List<String> lines() {
        try {
            return Files.exists(log) ? Files.readAllLines(log, java.nio.charset.StandardCharsets.ISO_8859_1)
                    : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String tail(int n) {
        List<String> lines = lines();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }

    /** The lanes of every UCX endpoint this process made, e.g. {@code rma_am(tcp/eth0) am(tcp/eth0)}, by line. */
    public List<String> ucxLanes() {
        return lines().stream().filter(l -> l.contains("ep_cfg[")).map(l ->
                l.replaceFirst(".*ep_cfg\\[\\d+\\]:\\s*", ""))
                .toList();
    }

    /**
     * SIGSTOP (true: the process hangs, its sockets open; returns once every thread of it is stopped) or SIGCONT
     * (false: it runs on).
     */
    public void stop(boolean stop) {
        ProcessStop.signal(pid(), stop);
    }

    /** SIGKILL: the host's process dies at once. */
    public void kill() {
        process.destroyForcibly();
        waitFor();
    }

    /** SIGTERM, then SIGKILL after 20 s. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }

    private void waitFor() {
        try {
            process.waitFor(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Descriptions of processes, for a failure message. */
    public static Map<String, String> tails(List<HostProcess> processes, int lines) {
        Map<String, String> out = new LinkedHashMap<>();
        processes.forEach(p -> out.put(p.host + " (" + p.log.getFileName() + ")", p.tail(lines)));
        return out;
    }
}
