package org.seaweedfs.rdma.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The needle-map entries of a volume's .idx bytes [fromPosition, toPosition), in log order, packed (see
 * {@link SyncEntryReader}). A reply to {@link SyncRequest} (request id echoed), or a push (request id 0) the agent
 * sends when the index grows. Apply in order: later entries win, deletions remove the key.
 *
 * @param more    true when the .idx held more than this frame carries: ask (or expect a push) from toPosition
 * @param entries packed 20-byte entries, not copied; see {@link SyncEntryReader#ENTRY_BYTES}
 */
public record SyncEntries(long requestId, long volumeId, long epoch, long fromPosition, long toPosition,
                          boolean more, byte[] entries) implements ControlMessage {
    public SyncEntries {
        FieldCheck.requestId("SyncEntries", requestId, MessageType.SYNC_ENTRIES);
        FieldCheck.u32("SyncEntries.volumeId", volumeId);
        FieldCheck.nonNegative("SyncEntries.fromPosition", fromPosition);
        FieldCheck.range("SyncEntries.toPosition", toPosition, fromPosition, Long.MAX_VALUE);
        FieldCheck.bytes("SyncEntries.entries", entries, 0, Integer.MAX_VALUE);
        if (entries.length % SyncEntryReader.ENTRY_BYTES != 0) {
            throw FieldCheck.bad("SyncEntries.entries", "length " + entries.length + " is not a multiple of "
                    + SyncEntryReader.ENTRY_BYTES);
        }
        if (entries.length > 0 && toPosition == fromPosition) {
            throw FieldCheck.bad("SyncEntries.toPosition", "must be past fromPosition when entries are present");
        }
    }

    /**
     * Splits packed entries that stand for the .idx records starting at {@code fromPosition} (one record of
     * {@code idxEntryBytes}, 16 or 17, per entry) into push frames (request id 0) of at most
     * {@code maxEntriesPerFrame} entries; {@code more} is set on all but the last. A reply to a SyncRequest is one
     * frame instead: fill a {@link SyncEntryWriter} up to its capacity and set {@code more} when entries remain.
     */
    public static List<SyncEntries> splitPushes(long volumeId, long epoch, long fromPosition, int idxEntryBytes,
                                                byte[] packed, int maxEntriesPerFrame) {
        if (idxEntryBytes != 16 && idxEntryBytes != 17) {
            throw new IllegalArgumentException("idxEntryBytes must be 16 or 17, got " + idxEntryBytes);
        }
        if (maxEntriesPerFrame < 1) {
            throw new IllegalArgumentException("maxEntriesPerFrame must be positive, got " + maxEntriesPerFrame);
        }
        int total = packed.length / SyncEntryReader.ENTRY_BYTES;
        List<SyncEntries> frames = new ArrayList<>(Math.max(1, (total + maxEntriesPerFrame - 1) / maxEntriesPerFrame));
        int first = 0;
        do {
            int n = Math.min(maxEntriesPerFrame, total - first);
            long from = fromPosition + (long) first * idxEntryBytes;
            byte[] chunk = Arrays.copyOfRange(packed, first * SyncEntryReader.ENTRY_BYTES,
                    (first + n) * SyncEntryReader.ENTRY_BYTES);
            first += n;
            frames.add(new SyncEntries(0, volumeId, epoch, from, from + (long) n * idxEntryBytes, first < total,
                    chunk));
        } while (first < total);
        return frames;
    }

    public int entryCount() {
        return entries.length / SyncEntryReader.ENTRY_BYTES;
    }

    /** A cursor over the entries (no per-entry objects). */
    public SyncEntryReader reader() {
        return new SyncEntryReader(entries);
    }

    @Override
    public MessageType type() {
        return MessageType.SYNC_ENTRIES;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SyncEntries s && requestId == s.requestId && volumeId == s.volumeId && epoch == s.epoch
                && fromPosition == s.fromPosition && toPosition == s.toPosition && more == s.more
                && Arrays.equals(entries, s.entries);
    }

    @Override
    public int hashCode() {
        return (Long.hashCode(volumeId) * 31 + Long.hashCode(toPosition)) * 31 + Arrays.hashCode(entries);
    }

    @Override
    public String toString() {
        return "SyncEntries[requestId=" + Long.toUnsignedString(requestId) + ", volumeId=" + volumeId
                + ", epoch=" + Long.toUnsignedString(epoch) + ", from=" + fromPosition + ", to=" + toPosition
                + ", more=" + more + ", entries=" + entryCount() + "]";
    }
}
