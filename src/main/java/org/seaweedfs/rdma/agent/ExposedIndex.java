package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.protocol.IndexHandle;
import org.seaweedfs.rdma.volume.IndexLayout;
import org.seaweedfs.rdma.volume.SortedNeedleIndex;
import org.seaweedfs.rdma.volume.VolumeFormatException;

import java.nio.ByteBuffer;

/**
 * A volume's needle index as sidecars read it with one-sided gets: a copy of its sorted index file (layout
 * {@link IndexLayout#VERSION}) in UCX-allocated memory, which same-host sidecars read over shared memory without
 * this agent's CPU. The copy only ever loses entries: every key the agent's overlay changes (an append over a key,
 * a deletion) has its entry {@link #withdraw withdrawn} as the change is applied, before it is pushed to sidecars,
 * so a sidecar finds in the copy either what the {@code .idx} said when the file was written and no change since, or
 * nothing (it asks the agent then). A key the file lacks (new since the file) is not there either. When the file is
 * replaced (a merge) the copy is withdrawn whole and a new copy exposed. Confined to the agent's context.
 */
final class ExposedIndex {

    private final SortedNeedleIndex sorted;
    private final ServedSegment memory;
    private final IndexLayout layout;
    private final ByteBuffer bytes;

    private ExposedIndex(SortedNeedleIndex sorted, ServedSegment memory, IndexLayout layout) {
        this.sorted = sorted;
        this.memory = memory;
        this.layout = layout;
        this.bytes = memory.bytes();
    }

    /** Copies {@code sorted} into {@code memory} (at least its file's bytes) and exposes it. */
    static ExposedIndex copy(SortedNeedleIndex sorted, ServedSegment memory, String source)
            throws VolumeFormatException {
        ByteBuffer into = memory.bytes().duplicate().clear();
        sorted.copyTo(into);
        IndexLayout layout = IndexLayout.parse(memory.bytes(), sorted.fileBytes(), source);
        return new ExposedIndex(sorted, memory, layout);
    }

    /** The file this is a copy of. */
    SortedNeedleIndex sorted() {
        return sorted;
    }

    ServedSegment memory() {
        return memory;
    }

    /** The copy's bytes as sidecars read them (header first), and how they are laid out. */
    ByteBuffer bytes() {
        return bytes;
    }

    IndexLayout layout() {
        return layout;
    }

    /** The key's entry, if the file has it, no longer gives a location. */
    void withdraw(long key) {
        long i = sorted.find(key);
        if (i >= 0) {
            layout.withdraw(bytes, i);
        }
    }

    /** Every entry is withdrawn: the copy is being replaced (sidecars still reading it ask the agent). */
    void withdrawAll() {
        layout.withdrawAll(bytes);
    }

    IndexHandle handle(long requestId, long volumeId, long epoch) {
        return new IndexHandle(requestId, volumeId, epoch, IndexLayout.VERSION, memory.region().address(),
                layout.length(), memory.region().packedRemoteKey());
    }
}
