package org.seaweedfs.rdma.ucx;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a UCX owner thread waits for work, chosen at start-up ({@code ucx.progress}) from what the host has.
 *
 * <p>Without an RDMA device UCX emulates a get of registered memory (the agent's mapped volumes) with messages that
 * the memory owner's thread must answer: every get a peer makes is served by the agent's owner thread. If that
 * thread sleeps in the kernel after each one, every get pays a wake-up; spinning {@value #SERVING_SPIN_MICROS} µs
 * after its last event lets it catch the next request of a steady stream without one (the C reference's agent loop,
 * {@code bench/ucp_get_bench.c}, does the same). With an RDMA device the NIC serves gets one-sidedly, and a
 * sidecar's owner thread carries only control messages (its gets run on event-loop lanes): both sleep at once. So
 * does an agent whose volumes are copies in UCX memory when shared memory may carry them: same-host peers read those
 * one-sidedly through the shared mapping, and spinning would only take a core from them.
 * A plan that spins also keeps a sidecar's event-loop lanes polling after a get with none in flight: one request at a
 * time then waits for no wake-up of the loop, at the price of a core per busy loop, which a host whose clients share
 * its cores cannot pay ({@code ucx.progress: spin} asks for it; auto never does).
 *
 * @param idleSpinMicros the owner thread's idle spin ({@link UcxSettings#idleSpinMicros()})
 * @param reason         why, for the start-up log line
 */
public record ProgressPlan(int idleSpinMicros, String reason) {

    /**
     * The agent's idle spin when it serves emulated gets (auto). Long enough for the next get of a burst, short enough
     * that a host whose cores are all busy (clients, event loops) does not lose one to it between bursts: 100 µs spent
     * 6.5-7.7 µs of the agent's CPU per 4 KiB read at 16 connections, 15 µs 3.3-3.8, with more reads per second and a
     * shorter p50 at one connection.
     */
    public static final int SERVING_SPIN_MICROS = 15;

    /** The idle spin {@code ucx.progress: spin} asks for: latency first, for hosts with cores to spare. */
    public static final int SPIN_MICROS = 100;

    /** Where the kernel lists RDMA devices (what UCX's verbs transports open). */
    public static final Path RDMA_DEVICES = Path.of("/sys/class/infiniband");

    /** What memory of this worker's process peers read. */
    public enum Served {
        /** None (a sidecar: it reads others' memory). */
        NOTHING,
        /** Registered file mappings (an agent's mapped volumes): without RDMA every get is emulated by this thread. */
        FILE_MAPPINGS,
        /** Copies in UCX-allocated memory (volumeMemory: ucx): same-host peers read them over shared memory. */
        UCX_COPIES
    }

    /**
     * @param mode        {@code ucx.progress}: auto, wait or spin
     * @param served      what memory of this process peers read
     * @param tls         the UCX_TLS list in use (whether an RDMA or a shared-memory transport may be chosen)
     * @param rdmaDevices RDMA devices on this host ({@link #rdmaDevices(Path)})
     */
    public static ProgressPlan choose(String mode, Served served, String tls, List<String> rdmaDevices) {
        switch (mode.toLowerCase(Locale.ROOT)) {
            case "spin":
                return new ProgressPlan(SPIN_MICROS, "ucx.progress: spin");
            case "wait":
                return new ProgressPlan(0, "ucx.progress: wait");
            case "auto":
                break;
            default:
                throw new IllegalArgumentException("ucx.progress must be auto, wait or spin, got '" + mode + "'");
        }
        if (served == Served.NOTHING) {
            return new ProgressPlan(0, "auto: no memory of this process is read by peers (gets run on event-loop"
                    + " lanes, which sleep once none is in flight; the owner thread carries control messages;"
                    + " ucx.progress: spin keeps both polling, for latency on hosts with spare cores)");
        }
        boolean rdmaTransports = UcxSettings.mayUseRdma(tls);
        if (!rdmaDevices.isEmpty() && rdmaTransports) {
            return new ProgressPlan(0, "auto: RDMA devices " + rdmaDevices + " read registered memory one-sidedly");
        }
        if (served == Served.UCX_COPIES && UcxSettings.mayUseSharedMemory(tls)) {
            return new ProgressPlan(0, "auto: volumes are copies in UCX memory, which same-host peers read one-sidedly"
                    + " over shared memory (peers on other hosts without RDMA pay a wake-up per get; ucx.progress: spin"
                    + " polls for them)");
        }
        String why = rdmaDevices.isEmpty() ? "no RDMA device in " + RDMA_DEVICES
                : "ucx.tls [" + tls + "] excludes RDMA (devices " + rdmaDevices + " unused)";
        return new ProgressPlan(SERVING_SPIN_MICROS, "auto: " + why + ", so UCX emulates peers' gets of registered"
                + " memory and this thread serves each; it polls " + SERVING_SPIN_MICROS + " µs after its last event"
                + " before sleeping, so a steady stream of gets waits for no wake-up");
    }

    /** The RDMA devices the kernel lists under {@code dir} (empty when there is none or it cannot be read). */
    public static List<String> rdmaDevices(Path dir) {
        List<String> names = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return names;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                names.add(entry.getFileName().toString());
            }
        } catch (IOException | SecurityException e) {
            return List.of();
        }
        names.sort(null);
        return names;
    }
}
