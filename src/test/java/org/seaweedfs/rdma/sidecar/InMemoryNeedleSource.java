package org.seaweedfs.rdma.sidecar;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import java.util.zip.GZIPOutputStream;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.volume.FileId;

/**
 * TEST DOUBLE of the read path: serves needles from an in-memory map with the real reader's outcomes
 * (404 for missing, deleted, empty or wrong-cookie needles), chunked like pooled buffers, and can inject
 * failures, latency, or hold reads until released. Counts contents not yet released.
 */
public final class InMemoryNeedleSource implements NeedleSource {

    private record Stored(NeedleStat stat, byte[] data) {
    }

    private final Vertx vertx;
    private final Map<String, Stored> needles = new ConcurrentHashMap<>();
    private final Map<String, ReadFailure> failures = new ConcurrentHashMap<>();
    private final List<Promise<Void>> held = new ArrayList<>();
    private final AtomicInteger unreleased = new AtomicInteger();
    private volatile int chunkSize = 4096;
    private volatile long latencyMs;
    private volatile boolean hold;
    private volatile String source = "rdma";
    private volatile String lastHint;

    public InMemoryNeedleSource(Vertx vertx) {
        this.vertx = vertx;
    }

    private static String slot(FileId fid) {
        return fid.volumeId() + ":" + fid.key();
    }

    /** A plain needle; returns its stat. */
    public NeedleStat put(FileId fid, byte[] data, String name, String mime, long lastModified, Map<String,
            String> pairs) {
        return store(fid, data, name, mime, lastModified, pairs, false);
    }

    /** A needle stored gzip-compressed (its ETag is the CRC of the compressed bytes). */
    public NeedleStat putGzipped(FileId fid, byte[] original, String name, String mime) {
        return store(fid, gzip(original), name, mime, 0, Map.of(), true);
    }

    public NeedleStat putManifest(FileId fid, byte[] json) {
        NeedleStat stat =
                new NeedleStat(fid, json.length, crc(json), "", "application/json", 0, Map.of(), false, true, source);
        needles.put(slot(fid), new Stored(stat, json));
        return stat;
    }

    private NeedleStat store(FileId fid, byte[] data, String name, String mime, long lastModified,
                             Map<String, String> pairs, boolean compressed) {
        NeedleStat stat =
                new NeedleStat(fid, data.length, crc(data), name, mime, lastModified, pairs, compressed, false, source);
        needles.put(slot(fid), new Stored(stat, data));
        return stat;
    }

    public void delete(FileId fid) {
        needles.remove(slot(fid));
    }

    /** Every read of {@code fid} fails with {@code failure}. */
    public void fail(FileId fid, ReadFailure failure) {
        failures.put(slot(fid), failure);
    }

    public void chunkSize(int bytes) {
        chunkSize = bytes;
    }

    public void latency(long millis) {
        latencyMs = millis;
    }

    /** The path reported in stats ("rdma", "read-through", "http"). */
    public void source(String path) {
        source = path;
    }

    /** While on, reads stay pending until {@link #releaseHeld()}. */
    public synchronized void hold(boolean on) {
        hold = on;
    }

    public synchronized void releaseHeld() {
        hold = false;
        held.forEach(Promise::tryComplete);
        held.clear();
    }

    public synchronized int heldReads() {
        return held.size();
    }

    /** Contents handed out and not yet released. */
    public int unreleased() {
        return unreleased.get();
    }

    public String lastHint() {
        return lastHint;
    }

    @Override
    public Future<NeedleStat> stat(FileId fid) {
        return lookup(fid).map(Stored::stat);
    }

    @Override
    public Future<NeedleContent> read(FileId fid) {
        return lookup(fid).map(this::content);
    }

    @Override
    public Future<NeedleContent> read(FileId fid, String volumeServerHint) {
        lastHint = volumeServerHint;
        return read(fid);
    }

    private Future<Stored> lookup(FileId fid) {
        return delay().compose(v -> {
            ReadFailure failure = failures.get(slot(fid));
            if (failure != null) {
                return Future.failedFuture(failure);
            }
            Stored s = needles.get(slot(fid));
            if (s == null || s.data().length == 0 || s.stat().fid().cookie() != fid.cookie()) {
                return Future.failedFuture(ReadFailure.notFound("needle " + fid + " not found"));
            }
            NeedleStat st = s.stat();
            return Future.succeededFuture(new Stored(new NeedleStat(st.fid(), st.size(), st.crc(), st.name(), st.mime(),
                    st.lastModified(), st.pairs(), st.compressed(), st.chunkManifest(), source), s.data()));
        });
    }

    private synchronized Future<Void> delay() {
        if (hold) {
            // Released from the test's thread; the reader hears of it on its own context, as NeedleSource promises.
            Promise<Void> p = VertxInternals.promise(VertxInternals.callerContext(vertx));
            held.add(p);
            return p.future();
        }
        if (latencyMs > 0) {
            Promise<Void> p = Promise.promise();
            vertx.setTimer(latencyMs, t -> p.complete());
            return p.future();
        }
        return Future.succeededFuture();
    }

    private NeedleContent content(Stored s) {
        List<Buffer> chunks = new ArrayList<>();
        for (int off = 0; off < s.data().length; off += chunkSize) {
            chunks.add(Buffer.buffer().appendBytes(s.data(), off, Math.min(chunkSize, s.data().length - off)));
        }
        unreleased.incrementAndGet();
        return new NeedleContent() {
            private boolean released;

            @Override
            public NeedleStat stat() {
                return s.stat();
            }

            @Override
            public List<Buffer> chunks() {
                return chunks;
            }

            @Override
            public synchronized void release() {
                if (!released) {
                    released = true;
                    unreleased.decrementAndGet();
                }
            }
        };
    }

    public static int crc(byte[] data) {
        CRC32C c = new CRC32C();
        c.update(data);
        return (int) c.getValue();
    }

    public static byte[] gzip(byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
