package org.seaweedfs.rdma.agent;

import java.time.Duration;
import java.util.Objects;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.volume.ec.EcLayout;

/**
 * What the agent fixes itself, no configuration key: {@link #FIXED} is what every agent runs with. Tests give smaller
 * ones to reach a bound with small volumes (several segments, EC volumes of small blocks, a reply queue of two).
 *
 * @param pollInterval       how often the volume files are checked for growth, deletions, new volumes and compaction
 *                           (250 ms: changes are served well within 1 s)
 * @param segmentBytes       size of one mapped and registered piece of a {@code .dat} (1 GiB: a multiple of 4096,
 *                           below 2 GiB because Java 17 maps at most 2 GiB at a time)
 * @param retireGrace        how long a replaced mapping stays registered, so reads that started before can finish
 *                           (10 s)
 * @param maxFrameBytes      largest control frame sent or accepted (4 MiB; sidecars use the same)
 * @param maxRepliesInFlight large replies (volume lists, sync frames, read-through data) one channel may have queued
 *                           for sending at once (32: with 4 MiB frames at most 128 MiB per sidecar); further such
 *                           requests are answered OVERLOADED (retriable) at once, so a sidecar that floods the agent
 *                           cannot make it buffer without bound
 * @param ecLargeBlock       the large block of the EC layout ({@link EcLayout#LARGE_BLOCK}, as SeaweedFS writes)
 * @param ecSmallBlock       the small block of the EC layout ({@link EcLayout#SMALL_BLOCK})
 */
public record AgentLimits(Duration pollInterval, long segmentBytes, Duration retireGrace, int maxFrameBytes,
                          int maxRepliesInFlight, long ecLargeBlock, long ecSmallBlock) {

    /** Segments are whole pages so every registration starts on a page boundary. */
    public static final long SEGMENT_ALIGNMENT = 4096;
    /** The largest page multiple one Java 17 mapping can hold. */
    public static final long MAX_SEGMENT_BYTES = (Integer.MAX_VALUE / SEGMENT_ALIGNMENT) * SEGMENT_ALIGNMENT;

    private static final Duration MAX_POLL_INTERVAL = Duration.ofSeconds(60);
    private static final Duration MAX_RETIRE_GRACE = Duration.ofHours(1);

    public static final AgentLimits FIXED = new AgentLimits(Duration.ofMillis(250), 1L << 30, Duration.ofSeconds(10),
            ControlCodec.DEFAULT_MAX_FRAME_BYTES, 32, EcLayout.LARGE_BLOCK, EcLayout.SMALL_BLOCK);

    public AgentLimits {
        Objects.requireNonNull(pollInterval, "pollInterval");
        require(pollInterval.toMillis() >= 1 && pollInterval.compareTo(MAX_POLL_INTERVAL) <= 0,
                "the poll interval must be between 1 ms and 60 s, got " + pollInterval);
        require(segmentBytes >= SEGMENT_ALIGNMENT && segmentBytes <= MAX_SEGMENT_BYTES
                && segmentBytes % SEGMENT_ALIGNMENT == 0,
                "a segment must be a multiple of " + SEGMENT_ALIGNMENT + " bytes between " + SEGMENT_ALIGNMENT
                        + " and " + MAX_SEGMENT_BYTES + " (Java maps below 2 GiB at a time), got " + segmentBytes);
        Objects.requireNonNull(retireGrace, "retireGrace");
        require(!retireGrace.isNegative() && retireGrace.compareTo(MAX_RETIRE_GRACE) <= 0,
                "the retire grace must be between 0 and 1 h, got " + retireGrace);
        require(maxFrameBytes >= ControlCodec.MIN_MAX_FRAME_BYTES && maxFrameBytes <= ControlCodec.MAX_MAX_FRAME_BYTES,
                "the largest control frame must be between " + ControlCodec.MIN_MAX_FRAME_BYTES + " and "
                        + ControlCodec.MAX_MAX_FRAME_BYTES + " bytes, got " + maxFrameBytes);
        require(maxRepliesInFlight >= 1 && maxRepliesInFlight <= 65_536,
                "the large replies in flight must be between 1 and 65536, got " + maxRepliesInFlight);
        require(ecSmallBlock > 0 && ecLargeBlock >= ecSmallBlock,
                "EC block sizes must satisfy 0 < small <= large, got " + ecLargeBlock + " and " + ecSmallBlock);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
