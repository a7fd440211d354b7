package org.seaweedfs.rdma.ucx;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Bytes [fileOffset, fileOffset + length) of a file a same-host peer serves from its read-only mapping (an agent's
 * {@code .dat} segment), mapped here too, so a read uses them where they lie: no get for the peer's thread to answer,
 * no copy. UCX 1.13 reads such memory only through the peer's thread (neither posix nor sysv register a file mapping,
 * and cma serves no gets); mapping the file is what UCX's own shared-memory transports do with memory they allocate.
 *
 * <p>Mapped at the first view, and only when the file at {@code path} is the peer's (device and inode) and holds the
 * range ({@link SigbusGuard#mapFile}): a path renamed over, another filesystem, no access or a shorter file leave it
 * unmapped, and readers get the bytes as before. The mapping is guarded like the agent's own, so a file cut under it
 * reads zeros (which fail the needle's checks) until the peer replaces the volume. Held by whoever describes the range
 * ({@link #hold}) and by each view; unmapped when the last of them lets go, never mapped again after the last holder.
 * Thread-safe: views come from any event loop.
 */
public final class PeerFile {

    private static final Logger log = LoggerFactory.getLogger(PeerFile.class);
    private static final AtomicBoolean TOLD_MAPPED = new AtomicBoolean();
    private static final AtomicBoolean TOLD_REFUSED = new AtomicBoolean();

    private final String path;
    private final long device;
    private final long inode;
    private final long fileOffset;
    private final long length;
    private int holders;
    private int views;
    private long address; // 0 until mapped, and once unmapped
    private ByteBuffer mapping;
    private boolean refused; // could not be mapped here: not tried again

    /**
     * The range of the peer's file at {@code path} (device and inode as the peer's host tells them). A range longer
     * than one view maps is never mapped: its reads are gets.
     */
    public PeerFile(String path, long device, long inode, long fileOffset, long length) {
        if (fileOffset < 0 || length <= 0) {
            throw new IllegalArgumentException(path + ": no range of " + length + " bytes at " + fileOffset);
        }
        this.path = path;
        this.device = device;
        this.inode = inode;
        this.fileOffset = fileOffset;
        this.length = length;
        this.refused = length > Integer.MAX_VALUE;
    }

    /** Whether this describes the same range of the same file as the arguments. */
    public boolean describes(String path, long device, long inode, long fileOffset, long length) {
        return this.path.equals(path) && this.device == device && this.inode == inode && this.fileOffset == fileOffset
                && this.length == length;
    }

    /** One more holder of the description: views may map the range until it lets go ({@link #release}). */
    public synchronized void hold() {
        holders++;
    }

    /** The holder lets go: no new views once none is left, and the mapping goes with the last view. */
    public synchronized void release() {
        if (holders > 0 && --holders == 0 && views == 0) {
            unmap();
        }
    }

    /**
     * Whether the peer's region of {@code regionLength} bytes, which this range is, is mapped here; false when it
     * cannot be (or is no longer held). Maps it on first use: an open, a stat and an mmap, once.
     */
    synchronized boolean mapsHere(long regionLength) {
        if (regionLength != length || holders == 0) {
            return false;
        }
        if (mapping == null && !refused) {
            map();
        }
        return mapping != null;
    }

    /**
     * A view of {@code bytes} bytes at {@code at} of the peer's region of {@code regionLength} bytes, which this range
     * is: a slice of the mapping, which stays until {@link #viewReleased}; null when it is not mapped here or the
     * bytes are not within the range. Taken in one step with the check, so no holder's release unmaps it between.
     */
    synchronized ByteBuffer take(long regionLength, long at, int bytes) {
        if (at < 0 || at + bytes > length || !mapsHere(regionLength)) {
            return null;
        }
        views++;
        return mapping.slice((int) at, bytes);
    }

    synchronized void viewReleased() {
        if (--views == 0 && holders == 0) {
            unmap();
        }
    }

    /** Bytes in the range. */
    long length() {
        return length;
    }

    /** Whether the range is mapped in this process now. */
    public synchronized boolean isMapped() {
        return address != 0;
    }

    private void map() {
        try {
            address = SigbusGuard.mapFile(path, fileOffset, length, device, inode);
        } catch (IOException e) {
            refused = true;
            if (TOLD_REFUSED.compareAndSet(false, true)) {
                log.warn("A same-host agent's volume file cannot be mapped here, so its reads are gets its UCX thread"
                        + " answers (agent CPU per read): " + e.getMessage() + ". Give this process read access to"
                        + " the agent's volume files at the same path to read them where they lie. Said once");
            } else {
                log.debug("Not mapping a same-host agent's volume file: " + e.getMessage());
            }
            return;
        }
        mapping = SigbusGuard.bytesAt(address, (int) length);
        if (TOLD_MAPPED.compareAndSet(false, true)) {
            log.info("Reading same-host agents' volumes from their files mapped here (no get, no agent CPU per read),"
                    + " first " + path);
        }
    }

    private void unmap() {
        if (address != 0) {
            SigbusGuard.unmapFile(address, length);
            address = 0;
        }
        mapping = null;
    }

    @Override
    public String toString() {
        return path + " [" + fileOffset + ", " + (fileOffset + length) + ")";
    }
}
