package org.seaweedfs.rdma.protocol;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A cursor over packed needle-map entries, without an object per entry:
 * <pre>
 * SyncEntryReader r = entries.reader();
 * while (r.next()) { if (r.isLive()) map.put(r.key(), r.offset(), r.size()); else map.remove(r.key()); }
 * </pre>
 * Each entry is 20 bytes, big-endian: key u64 · offset u64 (bytes in the .dat) · size u32 (the .idx value as is).
 */
public final class SyncEntryReader {
    public static final int ENTRY_BYTES = 20;

    static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private final byte[] packed;
    private final int end;
    private int position = -ENTRY_BYTES;

    /** @param packed whole entries; a trailing partial entry is ignored (SyncEntries never carries one) */
    public SyncEntryReader(byte[] packed) {
        this.packed = packed;
        this.end = packed.length - packed.length % ENTRY_BYTES;
    }

    /** Moves to the next entry; false when there is none. */
    public boolean next() {
        if (position + ENTRY_BYTES >= end) {
            position = end;
            return false;
        }
        position += ENTRY_BYTES;
        return true;
    }

    public long key() {
        return (long) LONG.get(packed, current());
    }

    /** Byte offset of the record in the .dat (0 for a deletion). */
    public long offset() {
        return (long) LONG.get(packed, current() + 8);
    }

    /** The .idx size bits: a needle Size when live; negative or 0xFFFFFFFF (-1) marks a deletion. */
    public int size() {
        return (int) INT.get(packed, current() + 16);
    }

    /** SeaweedFS's replay rule: live when offset is not 0 and size is not a deletion mark; else delete the key. */
    public boolean isLive() {
        return offset() != 0 && size() >= 0;
    }

    private int current() {
        if (position < 0 || position >= end) {
            throw new IllegalStateException("no current entry: call next() first and only while it returns true");
        }
        return position;
    }
}
