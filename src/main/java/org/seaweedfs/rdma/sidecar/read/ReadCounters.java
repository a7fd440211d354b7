package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.ReadFailure;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** What one read path has done: reads, bytes served, failures by kind, lookups and retries. Thread-safe. */
public final class ReadCounters {

    private final LongAdder reads = new LongAdder();
    private final LongAdder served = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder lookups = new LongAdder();
    private final LongAdder oneSided = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder ecRereads = new LongAdder();
    private final LongAdder batched = new LongAdder();
    private final Map<ReadFailure.Kind, LongAdder> failures = new EnumMap<>(ReadFailure.Kind.class);

    public ReadCounters() {
        for (ReadFailure.Kind kind : ReadFailure.Kind.values()) {
            failures.put(kind, new LongAdder());
        }
    }

    void started() {
        reads.increment();
    }

    void served(long dataBytes) {
        served.increment();
        bytes.add(dataBytes);
    }

    void failed(ReadFailure.Kind kind) {
        failures.get(kind).increment();
    }

    void lookedUp() {
        lookups.increment();
    }

    void foundOneSided() {
        oneSided.increment();
    }

    void retried() {
        retries.increment();
    }

    void ecReread() {
        ecRereads.increment();
    }

    /** A read served by the gets of a batch (also counted as started and served). */
    void servedInBatch(long dataBytes) {
        started();
        served(dataBytes);
        batched.increment();
    }

    /** Reads served by the gets of a batch, posted together ({@code readMany}). */
    public long batched() {
        return batched.sum();
    }

    /** Reads asked for (including those refused at once). */
    public long reads() {
        return reads.sum();
    }

    /** Reads answered with verified bytes. */
    public long served() {
        return served.sum();
    }

    /** Data bytes served. */
    public long bytes() {
        return bytes.sum();
    }

    /** Lookups sent to the agent (mirror misses and stale locations). */
    public long lookups() {
        return lookups.sum();
    }

    /** Misses resolved by reading the agent's exposed index one-sidedly (the record checked): no lookup. */
    public long oneSided() {
        return oneSided.sum();
    }

    /** Reads retried after a stale location or a re-listed volume. */
    public long retries() {
        return retries.sum();
    }

    /** Erasure-coded records read again from another set of shards (one distrusted) after failing their checksum. */
    public long ecRereads() {
        return ecRereads.sum();
    }

    public long failures(ReadFailure.Kind kind) {
        return failures.get(kind).sum();
    }
}
