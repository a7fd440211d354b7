package org.seaweedfs.rdma.sidecar.read;

import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPath;
import org.seaweedfs.rdma.sidecar.connection.AgentError;
import org.seaweedfs.rdma.sidecar.ec.EcShardReader;
import org.seaweedfs.rdma.sidecar.connection.AgentRoute;
import org.seaweedfs.rdma.sidecar.connection.AgentRouter;
import org.seaweedfs.rdma.sidecar.connection.LookupAnswer;
import org.seaweedfs.rdma.sidecar.connection.RemoteIndex;
import org.seaweedfs.rdma.sidecar.connection.RemoteVolume;
import org.seaweedfs.rdma.sidecar.connection.VolumeLocations;
import org.seaweedfs.rdma.sidecar.memory.PooledBuffer;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import org.seaweedfs.rdma.protocol.EcInfo;
import org.seaweedfs.rdma.protocol.ErrorCode;
import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.ucx.PeerView;
import org.seaweedfs.rdma.ucx.UcxRemoteKey;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.NeedleLayout;
import org.seaweedfs.rdma.sidecar.locations.NeedleLocation;

/**
 * The RDMA read path: locate the needle in the location cache (a miss asks the agent: one lookup, batched with
 * other misses and shared with concurrent misses of the same needle), one UCX get of the
 * whole record into a pooled registered buffer (one get per segment it touches), verify it as a volume server
 * would, and hand the data back wrapping the pooled memory. Records larger than a large pool buffer are read
 * in chunks of that size, all at once, and verified across them. A record in a same-host agent's shared memory,
 * which UCX maps into this process, is verified and handed back where it lies ({@link PeerView}): no get, no copy.
 *
 * <p>Threads: callable from any thread; each read runs on, and completes on, its caller's Vert.x context. Reads
 * finding the pool used up fail at once with a retriable UNAVAILABLE; a read past its deadline fails TIMEOUT (its
 * buffers return to the pool when its gets finish).
 */
public final class NeedleReader extends GatedReadPath {

    /** A location the cache or the agent gave (not read from the agent's exposed index). */
    private static final long CONFIRMED = -1;

    private final Vertx vertx;
    private final RegisteredBufferPool pool;
    private final EcShardReader ec;

    /**
     * @param router where {@link #read(FileId)} finds the agent; the resilient source resolves its own routes
     * @param pool   registered with the worker the router's connections use
     */
    public NeedleReader(Vertx vertx, AgentRouter router, RegisteredBufferPool pool, ReadPathOptions options) {
        this(vertx, router, pool, options, null);
    }

    /** @param ec reads the records of erasure-coded volumes from their shards; null = EC volumes fail UNAVAILABLE */
    public NeedleReader(Vertx vertx, AgentRouter router, RegisteredBufferPool pool, ReadPathOptions options,
                        EcShardReader ec) {
        super(router, new ReadGate(vertx, options, new ReadCounters(), ReadPath.RDMA));
        this.vertx = vertx;
        this.pool = pool;
        this.ec = ec;
    }

    /** Reads the needles whose locations are cached with gets posted together ({@link BatchFetch}). */
    @Override
    public Batch readMany(AgentRoute route, List<FileId> fids, long maxPlainBytes, long giveUpMillis,
                          IntFunction<Future<NeedleContent>> single) {
        if (route.volume() == null || route.volume().info().ec() != null || Vertx.currentContext() == null) {
            return super.readMany(route, fids, maxPlainBytes, giveUpMillis, single);
        }
        return new BatchFetch(vertx, gate, pool, route, fids, maxPlainBytes, single).start(giveUpMillis);
    }

    @Override
    public Future<NeedleContent> read(AgentRoute route, FileId fid) {
        return gate.start(fid, read -> read.route(route, r -> locate(read, r)));
    }

    private void locate(ReadAttempt read, AgentRoute route) {
        NeedleLocation at = route.volume().locations().find(read.fid().key());
        if (at != null) {
            fetch(read, route, at.offset(), at.size(), CONFIRMED, null);
            return;
        }
        RemoteIndex.Ready index = route.volume().locations().remoteIndex();
        if (index == null) {
            lookup(read, route);
        } else {
            readIndex(read, route, index);
        }
    }

    /**
     * Finds the needle in the agent's exposed index with one get of its bucket, then reads the record; anything that
     * does not check (not there, withdrawn, a bucket or record that does not match, a failed get) asks the agent.
     */
    private void readIndex(ReadAttempt read, AgentRoute route, RemoteIndex.Ready index) {
        VolumeLocations locations = route.volume().locations();
        long key = read.fid().key();
        long[] bucket = index.bucket(key);
        if (bucket == null || bucket[0] == bucket[1]) {
            fallBack(read, route, bucket == null && index.layout().bucketOf(key) >= 0 ? "bucket" : "absent");
            return;
        }
        PooledBuffer buffer = pool.acquire(index.bucketBytes(bucket[0], bucket[1]));
        if (buffer == null) {
            lookup(read, route);
            return;
        }
        long changesBefore = locations.changeCount();
        index.bucketGet(bucket[0], bucket[1], buffer.address()).onComplete(ar -> read.run(() -> {
            if (read.isDone()) {
                buffer.release();
                return;
            }
            if (ar.failed()) {
                buffer.release();
                fallBack(read, route, "get");
                return;
            }
            ByteBuffer entries = buffer.buffer();
            int i = index.layout().find(entries, (int) (bucket[1] - bucket[0]), key);
            long offset = i < 0 ? 0 : index.layout().offsetAt(entries, i);
            long size = i < 0 ? 0 : Integer.toUnsignedLong(index.layout().sizeAt(entries, i));
            buffer.release();
            if (offset == 0) {
                fallBack(read, route, "absent");
            } else {
                fetch(read, route, offset, size, changesBefore, null);
            }
        }));
    }

    private void fallBack(ReadAttempt read, AgentRoute route, String cause) {
        route.volume().locations().cache().fellBack(cause);
        lookup(read, route);
    }

    private void lookup(ReadAttempt read, AgentRoute route) {
        gate.counters().lookedUp();
        RemoteVolume volume = route.volume();
        Future<LookupAnswer> asked = volume.locations().lookup(read.fid());
        if (ec != null && volume.info().ec() != null) {
            ec.timed(volume, asked); // an agent that stopped answering is found late by its lookups too
        }
        asked.onComplete(ar -> read.run(() -> {
            if (read.isDone()) {
                return;
            }
            LookupAnswer answer = ar.succeeded() ? ar.result() : null;
            if (answer == null) {
                read.fail(lookupFailure(read, ar.cause()));
            } else if (answer.status() == LookupAnswer.Status.NOT_FOUND && answer.epoch() == route.volume().epoch()) {
                read.fail(ReadFailure.notFound("needle " + read.fid() + " not found"));
            } else if (answer.status() != LookupAnswer.Status.FOUND || answer.epoch() != route.volume().epoch()) {
                relistAndRetry(read, route, "volume " + read.fid().volumeId() + " changed epoch or went");
            } else {
                fetch(read, route, answer.location().offset(), answer.location().size(), CONFIRMED, null);
            }
        }));
    }

    /**
     * The agent answered the lookup with INTERNAL: it could not read the needle's record where its map says it is
     * (the .dat was cut in place, or its page is unreadable: the agent reads zeros there until it reopens the volume).
     * The agent and the transport work; the bytes are gone, so this is not held against the agent's breaker.
     */
    private static Throwable lookupFailure(ReadAttempt read, Throwable cause) {
        if (cause instanceof AgentError error && error.code() == ErrorCode.INTERNAL) {
            return ReadFailure.dataGone("looking up " + read.fid() + ": " + error.getMessage(), error);
        }
        return cause;
    }

    private void relistAndRetry(ReadAttempt read, AgentRoute route, String why) {
        read.relist(route, ReadFailure.dataGone("reading " + read.fid() + ": " + why + " again", null),
                r -> locate(read, r));
    }

    /**
     * Reads the record at {@code offset}. {@code fromIndex} is {@link #CONFIRMED} for a location from the cache or the
     * agent, else the volume's change count before it was read from the agent's exposed index: such a location is
     * only used once its record checks, and cached then. {@code distrust} is null on the first read of an EC record;
     * after a read whose record failed its checksum it names the shards still to distrust in turn (see
     * {@link #retryEc}).
     */
    private void fetch(ReadAttempt read, AgentRoute route, long offset, long size, long fromIndex, EcRetry distrust) {
        RemoteVolume volume = route.volume();
        if (fromIndex != CONFIRMED && size > gate.options().maxNeedleBytes()) {
            fallBack(read, route, "record");
            return;
        }
        if (size > gate.options().maxNeedleBytes()) {
            read.fail(ReadFailure.tooLarge(read.fid(), size, gate.options().maxNeedleBytes()));
            return;
        }
        long used = NeedleLayout.usedLength(size, volume.version());
        if (volume.info().ec() == null && viewed(read, route, offset, size, used, fromIndex)) {
            return;
        }
        int chunk = pool.largeBufferBytes();
        List<PooledBuffer> buffers = used <= chunk ? single(pool.acquire(used))
                : pool.acquireLarge((int) ((used + chunk - 1) / chunk));
        if (buffers == null) {
            read.fail(ReadFailure.overloaded("registered buffer pool is used up (" + pool.inUse()
                    + " buffers in use)"));
            return;
        }
        List<Future<Void>> gets = new ArrayList<>();
        List<ByteBuffer> pieces = new ArrayList<>(buffers.size());
        StaleLocation stale = null;
        try {
            for (int i = 0; i < buffers.size(); i++) {
                long start = (long) i * chunk;
                int length = (int) Math.min(chunk, used - start);
                if (volume.info().ec() != null) { // erasure-coded: the record's bytes come from its shards
                    gets.add(ec == null ? Future.failedFuture(ReadFailure.unavailable(volume.where()
                            + " is erasure-coded and this reader reads no EC shards", null))
                            : ec.getInto(volume, buffers.get(i), offset + start, length,
                                    distrust == null ? Set.of() : Set.of(distrust.shard())));
                } else {
                    getInto(buffers.get(i), volume, offset + start, length, gets);
                }
                pieces.add(buffers.get(i).buffer().limit(length));
            }
        } catch (StaleLocation e) {
            stale = e;
        }
        StaleLocation missingSegment = stale;
        Future<?> fetched = gets.size() == 1 ? gets.get(0) : Future.join(gets);
        fetched.onComplete(ar -> read.run(() -> {
            if (read.isDone()) {
                buffers.forEach(PooledBuffer::release);
            } else if (missingSegment != null) {
                buffers.forEach(PooledBuffer::release);
                relistAndRetry(read, route, missingSegment.getMessage());
            } else if (ar.failed()) {
                buffers.forEach(PooledBuffer::release);
                if (fromIndex != CONFIRMED) {
                    fallBack(read, route, "get");
                } else if (distrust == null && ar.cause() instanceof ReadFailure f && f.dataGone()) {
                    // An EC volume short of shards, or switching generation: its new listing may serve the read.
                    read.relist(route, f, r -> locate(read, r));
                } else if (distrust == null || !retryEc(read, route, offset, size, distrust, null)) {
                    // A re-read distrusting a shard may lack the shards to rebuild it: it distrusts the next one.
                    read.fail(distrust == null ? ar.cause() : distrust.first());
                }
            } else {
                verify(read, route, offset, size, () -> buffers.forEach(PooledBuffer::release), pieces, fromIndex,
                        distrust);
            }
        }));
    }

    /** The shard an EC re-read distrusts, and those to distrust after it should that re-read fail its checksum too. */
    private record EcRetry(int shard, List<Integer> rest, ReadFailure first) {
    }

    /**
     * An EC record failed its checksum: one of the shards it came from (directly, or as the input of a rebuild) may
     * be rotten on disk where no {@code .ecsum} tells. Re-reads it distrusting one shard at a time (the record's own
     * shards first, then the others), so its bytes come from another set of shards; fails with the first checksum
     * failure once every shard was distrusted. Wrong bytes are never answered: each re-read is verified again.
     */
    private boolean retryEc(ReadAttempt read, AgentRoute route, long offset, long size, EcRetry tried,
                            ReadFailure failure) {
        RemoteVolume volume = route.volume();
        EcInfo info = volume.info().ec();
        if (info == null || ec == null || read.isDone()) {
            return false;
        }
        List<Integer> rest = tried == null
                ? EcShardReader.distrustOrder(info, offset, NeedleLayout.usedLength(size, volume.version()))
                : tried.rest();
        if (rest.isEmpty()) {
            return false;
        }
        ReadFailure first = tried == null ? failure : tried.first();
        gate.counters().ecReread();
        fetch(read, route, offset, size, CONFIRMED, new EcRetry(rest.get(0), rest.subList(1, rest.size()), first));
        return true;
    }

    /** Checks the record read into {@code pieces}; {@code release} returns the memory they lie in. */
    private void verify(ReadAttempt read, AgentRoute route, long offset, long size, Runnable release,
                        List<ByteBuffer> pieces, long fromIndex, EcRetry distrust) {
        RemoteVolume volume = route.volume();
        VerifiedRecord record;
        try {
            record = VerifiedRecord.check(read.fid(), size, volume.version(), pieces, System::currentTimeMillis,
                    ReadPath.RDMA.wire, volume.where(), offset);
        } catch (RuntimeException e) {
            release.run();
            // In an EC record the bytes (the header's too) may come from a rotten shard: read it from other shards.
            ReadFailure corrupt = e instanceof ReadFailure f && f.kind() == ReadFailure.Kind.CORRUPT ? f
                    : e instanceof StaleLocation ? ReadFailure.corrupt("needle " + read.fid() + ": " + e.getMessage())
                    : null;
            if (fromIndex != CONFIRMED) {
                fallBack(read, route, "record"); // a torn, stale or corrupt entry: the agent knows better
            } else if (corrupt != null && retryEc(read, route, offset, size, distrust, corrupt)) {
                return;
            } else if (e instanceof StaleLocation stale) {
                volume.locations().evict(read.fid().key()); // whatever told us this location, it is wrong now
                if (read.mayRetry()) {
                    lookup(read, route);
                } else {
                    read.fail(ReadFailure.dataGone("reading " + read.fid() + ": the agent's needle map still points"
                            + " at a record that is not the needle: " + stale.getMessage(), null));
                }
            } else {
                read.fail(distrust != null && corrupt != null ? distrust.first() : e);
            }
            return;
        }
        if (fromIndex != CONFIRMED) {
            volume.locations().rememberVerified(read.fid().key(), offset, size, fromIndex);
            volume.locations().cache().oneSided();
            gate.counters().foundOneSided();
        }
        read.succeed(new VerifiedNeedle(record, release));
    }

    /** Gets {@code [datOffset, datOffset + length)} of the volume into the buffer: one get per segment touched. */
    private static void getInto(PooledBuffer buffer, RemoteVolume volume, long datOffset, int length,
            List<Future<Void>> gets) {
        VolumeInfo info = volume.info();
        long end = datOffset + length;
        long at = datOffset;
        while (at < end) {
            Segment segment = info.segmentAt(at);
            if (segment == null) {
                throw new StaleLocation("no segment of volume " + info.volumeId() + " (epoch " + info.epoch()
                        + ") maps .dat offset " + at);
            }
            long n = Math.min(end, segment.end()) - at;
            UcxRemoteKey key = volume.keyOf(segment);
            if (!key.isValid()) { // the volume was replaced (grew or compacted) and its keys released
                throw new StaleLocation("the key of segment " + segment.index() + " of volume " + info.volumeId()
                        + " (epoch " + info.epoch() + ") was released");
            }
            gets.add(key.channel().get(segment.addressOf(at), key, buffer.address() + (at - datOffset), n));
            at += n;
        }
    }

    /**
     * Verifies the record where it lies, when it lies in one segment of a same-host agent's shared memory that UCX
     * mapped here and this thread has a lane to the agent: true then (now, or from the lane's next polling task);
     * false otherwise (the record is then read with gets, which also report any problem with its location or key).
     */
    private boolean viewed(ReadAttempt read, AgentRoute route, long offset, long size, long used, long fromIndex) {
        RemoteVolume volume = route.volume();
        Segment segment = volume.info().segmentAt(offset);
        if (segment == null || offset + used > segment.end() || used > Integer.MAX_VALUE) {
            return false;
        }
        UcxRemoteKey key = volume.keyOf(segment);
        return key.isValid() && key.channel().view(segment.address(), segment.length(), key, volume.fileOf(segment),
                segment.addressOf(offset), (int) used, view -> read.run(() -> {
                    if (read.isDone()) { // answered meanwhile (a hedge, the deadline): the view was not needed
                        view.release();
                    } else {
                        verify(read, route, offset, size, view::release, List.of(view.bytes()), fromIndex, null);
                    }
                }));
    }

    private static List<PooledBuffer> single(PooledBuffer buffer) {
        return buffer == null ? null : List.of(buffer);
    }
}
