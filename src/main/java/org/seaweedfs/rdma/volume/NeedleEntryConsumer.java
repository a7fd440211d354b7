package org.seaweedfs.rdma.volume;

/**
 * Receives needle map entries as primitives (no object per entry). {@code offset} is in bytes;
 * {@code size} is {@link NeedleMap#DELETED} for a deletion.
 */
@FunctionalInterface
public interface NeedleEntryConsumer {
    void accept(long key, long offset, int size);
}
