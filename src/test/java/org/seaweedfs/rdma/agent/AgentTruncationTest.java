package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.ucx.SigbusGuard;
import org.seaweedfs.rdma.testing.AgentSetup;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.agent.AgentFollowTest.awaitVolume;
import static org.seaweedfs.rdma.agent.AgentTestClient.sidecar;
import static org.seaweedfs.rdma.agent.AgentTestClient.volume;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.LogCapture;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.testing.Await;

/**
 * A served .dat cut in place while a sidecar reads the cut region over UCX, many times: the agent (this JVM) survives
 * every round and goes on serving its other volume and the restored one. Where UCX emulates gets by copying from the
 * agent's mapping (this machine), the cut pages fault in the agent's native code: the SIGBUS guard takes them.
 */
class AgentTruncationTest extends AgentTestBase {

    private static final int ROUNDS = 20;
    private static final int CHUNK = 64 << 10;

    @Test
    void truncatingAServedDatUnderReadsNeverKillsTheAgent() throws Exception {
        assertTrue(SigbusGuard.active(), "the SIGBUS guard is built and loaded (gcc at build time)");
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient reader = sidecar(h);
        AgentTestClient control = sidecar(h);
        Path dat = h.dir.resolve("2.dat");
        byte[] original = Files.readAllBytes(dat);
        byte[] other = Files.readAllBytes(h.dir.resolve("1.dat"));
        Random random = new Random(14);
        long faultsBefore = SigbusGuard.faults();
        for (int round = 0; round < ROUNDS; round++) {
            VolumeInfo served = awaitVolume(control, 2, v -> v.datSize() == original.length);
            long cut = 4096 + random.nextInt(original.length / 2);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong gets = new AtomicLong();
            Thread reads = new Thread(() -> {
                while (!stop.get()) {
                    for (long at = cut & ~4095L; at < original.length && !stop.get(); at += CHUNK) {
                        try {
                            reader.get(served, at, (int) Math.min(CHUNK, original.length - at));
                        } catch (Exception gone) {
                            // bytes that are gone may fail; the agent must not
                        }
                        gets.incrementAndGet();
                    }
                }
            }, "truncation-reader");
            reads.start();
            awaitAtLeast(gets, 1);
            try (FileChannel ch = FileChannel.open(dat, StandardOpenOption.WRITE)) {
                ch.truncate(cut);
            }
            awaitAtLeast(gets, gets.get() + 2 * (original.length / CHUNK + 1)); // reads of the cut region, twice over
            stop.set(true);
            reads.join();
            Files.write(dat, original); // in place again, same inode: restored for the next round
        }
        VolumeInfo one = volume(control, 1);
        int length = (int) Math.min(one.datSize(), 1 << 20);
        assertArrayEquals(Arrays.copyOf(other, length), control.get(one, 0, length), "the other volume is served");
        // Pages lost under a mapping are zero until the agent reopens the volume (its next poll): then all is served.
        awaitRestored(control, original);
        // The cut pages faulted in this JVM and the guard took them (thousands of pages over the rounds here; a round
        // whose reopen comes before any read of the cut pages has none).
        assertTrue(SigbusGuard.faults() > faultsBefore, "the SIGBUS guard replaced no page over " + ROUNDS + " rounds");
    }

    /**
     * The reopen after lost pages fails when it meets the .dat mid-rewrite (empty): the volume must still be reopened
     * once the file is whole again, not left serving the zero pages the guard put in.
     */
    @Test
    void aReopenThatMeetsTheDatMidRewriteIsTriedAgain() throws Exception {
        AgentHarness h = start(AgentSetup.DEFAULTS);
        AgentTestClient reader = sidecar(h);
        AgentTestClient control = sidecar(h);
        Path dat = h.dir.resolve("2.dat");
        byte[] original = Files.readAllBytes(dat);
        VolumeInfo served = awaitVolume(control, 2, v -> v.datSize() == original.length);
        try (LogCapture log = LogCapture.of(VolumeFollower.class.getName(), "WARN")) {
            try (FileChannel ch = FileChannel.open(dat, StandardOpenOption.WRITE)) {
                ch.truncate(0); // every page gone: the reopen that the lost pages start finds no super block
            }
            Await.until("a read of the cut pages faults", () -> {
                try {
                    reader.get(served, 0, 4096);
                } catch (Exception gone) {
                    // the bytes are gone; the agent must not be
                }
                return log.messages().stream().anyMatch(m -> m.contains("super block"));
            });
            Files.write(dat, original); // whole again, same inode
        }
        awaitRestored(control, original);
    }

    /** Volume 2 listed at its original size and served byte for byte. */
    private static void awaitRestored(AgentTestClient control, byte[] original) {
        Await.until("the restored volume is served", () -> {
            VolumeInfo two = awaitVolume(control, 2, v -> v.datSize() == original.length);
            try {
                return control.get(two, 0, original.length);
            } catch (Exception retired) {
                return null; // a mapping retired between the listing and the get
            }
        }, served -> Arrays.equals(original, served));
    }

    private static void awaitAtLeast(AtomicLong counter, long n) {
        Await.until("reads go on (" + n + " gets)", () -> counter.get() >= n);
    }
}
