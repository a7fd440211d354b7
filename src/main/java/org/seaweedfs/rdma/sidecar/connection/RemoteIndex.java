package org.seaweedfs.rdma.sidecar.connection;

import io.vertx.core.Context;
import io.vertx.core.Future;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.seaweedfs.rdma.protocol.IndexHandle;
import org.seaweedfs.rdma.protocol.IndexRequest;
import org.seaweedfs.rdma.ucx.UcxChannel;
import org.seaweedfs.rdma.ucx.UcxMemoryRegion;
import org.seaweedfs.rdma.ucx.UcxRemoteKey;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.volume.IndexLayout;
import org.seaweedfs.rdma.volume.VolumeFormatException;

/**
 * One volume epoch's exposed needle index at its agent (protocol version 4), as this connection reads it: the
 * handle, its remote key unpacked on the channel, and a copy of the header and bucket directory (about 4 bytes per
 * 8 needles, off the heap), fetched with two gets on the first miss. A lookup then reads one bucket of packed
 * entries with one get ({@link Ready#bucketGet}). Loaded at most once at a time, on the connection's home context;
 * after a failure (no index exposed yet, a header that does not check) it is not asked for again for a while, and
 * the reads look needles up meanwhile. {@link #ready()} is a lock-free read for the read path.
 */
public final class RemoteIndex {

    /** How long a volume whose index could not be had is looked up only, before asking again. */
    static final long RETRY_NANOS = 1_000_000_000L;
    /** Entries a bucket may plausibly hold (about 8 on average): more means a directory that does not check. */
    public static final int MAX_BUCKET_ENTRIES = 4096;

    /**
     * A loaded index: where its bytes are, how they are laid out, its directory.
     *
     * @param address the remote address of the index's first byte
     */
    public record Ready(IndexLayout layout, ByteBuffer directory, long address, UcxRemoteKey key) {

        /** The entry numbers [start, end) of the key's bucket, or null when the key has none or they do not check. */
        public long[] bucket(long needleKey) {
            long b = layout.bucketOf(needleKey);
            if (b < 0) {
                return null;
            }
            long start = layout.bucketStart(directory, b);
            long end = layout.bucketStart(directory, b + 1);
            if (start > end || end > layout.count() || end - start > MAX_BUCKET_ENTRIES) {
                return null;
            }
            return new long[] {start, end};
        }

        /** Bytes to get for entries [start, end): the packed entries and the slack a field read touches. */
        public int bucketBytes(long start, long end) {
            return (int) ((end - start) * layout.entryBytes()) + IndexLayout.SLACK;
        }

        /** Gets the entries [start, end) into {@code local}; completes on the caller's context. */
        public Future<Void> bucketGet(long start, long end, long local) {
            long at = address + layout.entriesAt() + start * layout.entryBytes();
            return key.channel().get(at, key, local, bucketBytes(start, end));
        }
    }

    private final long volumeId;
    private final long epoch;
    private final Context home;
    private final RequestTable requests;
    private final UcxChannel channel;
    private final UcxWorkerVerticle ucx;
    private volatile Ready ready;
    private volatile long retryAt;
    private boolean loading;
    private boolean dropped;

    RemoteIndex(long volumeId, long epoch, Context home, RequestTable requests, UcxChannel channel,
                UcxWorkerVerticle ucx) {
        this.volumeId = volumeId;
        this.epoch = epoch;
        this.home = home;
        this.requests = requests;
        this.channel = channel;
        this.ucx = ucx;
        this.retryAt = System.nanoTime();
    }

    /** The loaded index, or null (then it starts loading unless it is, or failed a moment ago). Any thread. */
    public Ready ready() {
        Ready r = ready;
        if (r == null && System.nanoTime() - retryAt >= 0) {
            retryAt = System.nanoTime() + RETRY_NANOS;
            home.runOnContext(v -> load());
        }
        return r != null && r.key().isValid() ? r : null;
    }

    boolean loaded() {
        return ready != null;
    }

    /** Home context: the agent replaced the index (or the volume went): drop it; a later miss loads the new one. */
    void drop() {
        Ready r = ready;
        ready = null;
        retryAt = System.nanoTime();
        if (r != null && channel.isOpen()) {
            channel.releaseRemoteKey(r.key());
        }
    }

    /** Home context: for good (the volume epoch is retired). */
    void retire() {
        dropped = true;
        drop();
    }

    private void load() {
        if (loading || dropped || ready != null) {
            return;
        }
        loading = true;
        requests.request(id -> new IndexRequest(id, volumeId), IndexHandle.class, "IndexRequest")
                .compose(handle -> handle.epoch() != epoch || handle.layout() != IndexLayout.VERSION
                        ? Future.failedFuture("volume " + volumeId + ": index of epoch " + handle.epoch()
                                + " layout " + handle.layout())
                        : channel.unpackRemoteKey(handle.remoteKey()).compose(key -> fetch(handle, key)
                                .onFailure(e -> channel.releaseRemoteKey(key))))
                .onComplete(ar -> {
                    loading = false;
                    if (ar.succeeded() && !dropped) {
                        ready = ar.result();
                    } else if (ar.succeeded()) {
                        channel.releaseRemoteKey(ar.result().key());
                    } else {
                        retryAt = System.nanoTime() + RETRY_NANOS;
                    }
                });
    }

    /** Gets the header, checks it, then gets the header and directory and keeps a copy off the heap. */
    private Future<Ready> fetch(IndexHandle handle, UcxRemoteKey key) {
        String source = "the exposed index of volume " + volumeId + " at " + channel;
        return getCopy(handle, key, 128).compose(header -> {
            IndexLayout layout;
            try {
                layout = IndexLayout.parse(header, handle.length(), source);
            } catch (VolumeFormatException e) {
                return Future.failedFuture(e);
            }
            if (layout.entriesAt() > Integer.MAX_VALUE) {
                return Future.failedFuture(source + ": a directory of " + layout.entriesAt() + " bytes");
            }
            return getCopy(handle, key, (int) layout.entriesAt())
                    .map(directory -> new Ready(layout, directory, handle.address(), key));
        });
    }

    /** The first {@code length} bytes of the index, copied into a direct buffer the garbage collector frees. */
    private Future<ByteBuffer> getCopy(IndexHandle handle, UcxRemoteKey key, int length) {
        if (length > handle.length()) {
            return Future.failedFuture("volume " + volumeId + ": an index of " + handle.length() + " bytes");
        }
        return ucx.allocate(length).compose(region -> channel.get(handle.address(), key, region.address(), length)
                .map(v -> copyOut(region, length))
                .eventually(() -> ucx.deregister(region)));
    }

    private static ByteBuffer copyOut(UcxMemoryRegion region, int length) {
        ByteBuffer copy = ByteBuffer.allocateDirect(length).order(ByteOrder.LITTLE_ENDIAN);
        copy.put(region.buffer().duplicate().clear().limit(length)).clear();
        return copy;
    }
}
