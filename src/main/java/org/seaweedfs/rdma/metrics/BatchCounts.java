package org.seaweedfs.rdma.metrics;

/**
 * The members of one batch (an event-bus {@code readMany}, a {@code POST /batch}) as they end: reads by source and
 * result, and bytes served by source, in plain fields, recorded in one step by {@link ReadMeters#recordBatch} when the
 * batch ends. Recording every member on its own (a timer's histogram and maximum, a summary and several adders each)
 * took about a tenth of the CPU of a batch of 4 KiB needles; and to its caller a member's latency is the batch's.
 *
 * <p>Confined to the batch's event loop.
 */
public final class BatchCounts {

    final long[] reads = new long[ReadMeters.SLOTS];
    final long[] bytes = new long[ReadMeters.SOURCE_SLOTS];

    /** A member that ended with {@code result} (a {@link ReadMeters#resultOf} value), from {@code source}. */
    public void read(String source, String result) {
        reads[ReadMeters.slot(source, result)]++;
    }

    /** A member served: {@code bytes} of its body handed on, from {@code source}. */
    public void served(String source, long bytes) {
        read(source, "ok");
        this.bytes[ReadMeters.sourceSlot(source)] += bytes;
    }

    /** Members counted so far. */
    public long members() {
        long members = 0;
        for (long n : reads) {
            members += n;
        }
        return members;
    }
}
