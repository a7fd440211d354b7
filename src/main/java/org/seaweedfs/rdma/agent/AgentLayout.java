package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.volume.ec.EcLayout;

/**
 * The agent's fixed layout, no configuration key: the pieces it cuts what it serves and sends into, and how many large
 * replies a channel queues. {@link #FIXED} is what every agent runs with; tests give smaller sizes to reach a bound
 * with small volumes (several segments, EC volumes of small blocks, a sync of several frames, a queue of two).
 *
 * @param segmentBytes       size of one mapped and registered piece of a {@code .dat} (1 GiB: a multiple of 4096,
 *                           below 2 GiB because Java 17 maps at most 2 GiB at a time)
 * @param ecLargeBlock       the large block of the EC layout ({@link EcLayout#LARGE_BLOCK}, as SeaweedFS writes)
 * @param ecSmallBlock       the small block of the EC layout ({@link EcLayout#SMALL_BLOCK})
 * @param maxFrameBytes      largest control frame sent or accepted (4 MiB; sidecars use the same)
 * @param maxRepliesInFlight large replies (volume lists, sync frames, read-through data) one channel may have queued
 *                           for sending at once (32: with 4 MiB frames at most 128 MiB per sidecar); further such
 *                           requests are answered OVERLOADED (retriable) at once, so a sidecar that floods the agent
 *                           cannot make it buffer without bound
 */
public record AgentLayout(long segmentBytes, long ecLargeBlock, long ecSmallBlock, int maxFrameBytes,
                          int maxRepliesInFlight) {

    /** Segments are whole pages so every registration starts on a page boundary. */
    public static final long SEGMENT_ALIGNMENT = 4096;
    /** The largest page multiple one Java 17 mapping can hold. */
    public static final long MAX_SEGMENT_BYTES = (Integer.MAX_VALUE / SEGMENT_ALIGNMENT) * SEGMENT_ALIGNMENT;

    public static final AgentLayout FIXED = new AgentLayout(1L << 30, EcLayout.LARGE_BLOCK, EcLayout.SMALL_BLOCK,
            ControlCodec.DEFAULT_MAX_FRAME_BYTES, 32);

    public AgentLayout {
        require(segmentBytes >= SEGMENT_ALIGNMENT && segmentBytes <= MAX_SEGMENT_BYTES
                && segmentBytes % SEGMENT_ALIGNMENT == 0,
                "a segment must be a multiple of " + SEGMENT_ALIGNMENT + " bytes between " + SEGMENT_ALIGNMENT
                        + " and " + MAX_SEGMENT_BYTES + " (Java maps below 2 GiB at a time), got " + segmentBytes);
        require(ecSmallBlock > 0 && ecLargeBlock >= ecSmallBlock,
                "EC block sizes must satisfy 0 < small <= large, got " + ecLargeBlock + " and " + ecSmallBlock);
        require(maxFrameBytes >= ControlCodec.MIN_MAX_FRAME_BYTES && maxFrameBytes <= ControlCodec.MAX_MAX_FRAME_BYTES,
                "the largest control frame must be between " + ControlCodec.MIN_MAX_FRAME_BYTES + " and "
                        + ControlCodec.MAX_MAX_FRAME_BYTES + " bytes, got " + maxFrameBytes);
        require(maxRepliesInFlight >= 1 && maxRepliesInFlight <= 65_536,
                "the large replies in flight must be between 1 and 65536, got " + maxRepliesInFlight);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
