package org.seaweedfs.rdma.agent;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.protocol.ControlMessage;
import org.seaweedfs.rdma.protocol.Hello;
import org.seaweedfs.rdma.protocol.Segment;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncRequest;
import org.seaweedfs.rdma.protocol.VolumeList;
import org.seaweedfs.rdma.protocol.VolumeListRequest;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.testing.UcxSetup;
import org.seaweedfs.rdma.ucx.UcxChannel;
import org.seaweedfs.rdma.ucx.UcxMemoryRegion;
import org.seaweedfs.rdma.ucx.UcxRemoteKey;
import org.seaweedfs.rdma.ucx.UcxSettings;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.testing.AgentHarness;
import java.util.ArrayList;
import java.util.List;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;
import static org.seaweedfs.rdma.testing.Await.await;

/**
 * A minimal sidecar for tests: its own Vert.x and UCX worker, one channel to the agent, requests answered by id,
 * pushes (request id 0) queued, and one-sided gets of the agent's segments.
 */
final class AgentTestClient implements AutoCloseable {

    static final long TIMEOUT_S = 10;

    private final Vertx vertx = Vertx.vertx();
    private final UcxWorkerVerticle ucx = new UcxWorkerVerticle(AgentTestClient.ucxSettings());
    private final ControlCodec codec = new ControlCodec();
    private final Map<Long, CompletableFuture<ControlMessage>> waiting = new ConcurrentHashMap<>();
    private final BlockingQueue<ControlMessage> pushes = new LinkedBlockingQueue<>();
    private final AtomicLong ids = new AtomicLong();
    private final UcxChannel channel;
    private UcxMemoryRegion local;

    static UcxSettings ucxSettings() {
        return UcxSetup.defaults();
    }

    AgentTestClient(int port) throws Exception {
        await(vertx.deployVerticle(ucx));
        channel = await(ucx.connect("127.0.0.1", port));
        channel.frameHandler(frame -> {
            ControlMessage message = codec.decode(frame.getBytes());
            CompletableFuture<ControlMessage> reply = message.requestId() == 0 ? null
                    : waiting.remove(message.requestId());
            if (reply != null) {
                reply.complete(message);
            } else {
                pushes.add(message);
            }
        });
    }

    UcxChannel channel() {
        return channel;
    }

    /** Sends the request made for a fresh id and waits for its reply. */
    ControlMessage request(LongFunction<ControlMessage> make) throws Exception {
        long id = ids.incrementAndGet();
        return send(id, codec.encode(make.apply(id)));
    }

    <T extends ControlMessage> T request(LongFunction<ControlMessage> make, Class<T> replyType) throws Exception {
        return assertInstanceOf(replyType, request(make));
    }

    /**
     * Sends raw bytes and waits for the reply carrying {@code id} (0: the next push, e.g. a connection-level error).
     */
    ControlMessage send(long id, byte[] frame) throws Exception {
        CompletableFuture<ControlMessage> reply = new CompletableFuture<>();
        if (id != 0) {
            waiting.put(id, reply);
        }
        await(channel.send(Buffer.buffer(frame)));
        return id == 0 ? nextPush(m -> true) : reply.get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    /** Sends a request without waiting: its reply completes the returned future. */
    CompletableFuture<ControlMessage> requestAsync(LongFunction<ControlMessage> make) {
        long id = ids.incrementAndGet();
        CompletableFuture<ControlMessage> reply = new CompletableFuture<>();
        waiting.put(id, reply);
        channel.send(Buffer.buffer(codec.encode(make.apply(id)))).onFailure(reply::completeExceptionally);
        return reply;
    }

    ControlMessage hello(String token) throws Exception {
        return request(id -> new Hello(id, ControlCodec.PROTOCOL_VERSION, "test-sidecar", token));
    }

    /** The next push matching {@code wanted} within {@code TIMEOUT_S}; others before it are dropped. */
    ControlMessage nextPush(Predicate<ControlMessage> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (true) {
            ControlMessage push = pushes.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (push == null) {
                return fail("no matching push within " + TIMEOUT_S + " s");
            }
            if (wanted.test(push)) {
                return push;
            }
        }
    }

    <T extends ControlMessage> T nextPush(Class<T> type, Predicate<T> wanted) throws InterruptedException {
        return type.cast(nextPush(m -> type.isInstance(m) && wanted.test(type.cast(m))));
    }

    /** Reads .dat bytes [offset, offset+length) of a volume with one-sided gets (one per segment touched). */
    byte[] get(VolumeInfo volume, long offset, int length) throws Exception {
        if (local == null || local.length() < length) {
            local = await(ucx.register(ByteBuffer.allocateDirect(Math.max(length, 1 << 20))));
        }
        long at = offset;
        int done = 0;
        while (done < length) {
            Segment segment = segmentOf(volume, at);
            int n = (int) Math.min(length - done, segment.end() - at);
            UcxRemoteKey key = await(channel.unpackRemoteKey(segment.remoteKey()));
            await(channel.get(segment.addressOf(at), key, local.address() + done, n));
            at += n;
            done += n;
        }
        byte[] bytes = new byte[length];
        local.buffer().duplicate().clear().get(bytes);
        return bytes;
    }

    static Segment segmentOf(VolumeInfo volume, long offset) {
        for (Segment segment : volume.segments()) {
            if (offset >= segment.fileOffset() && offset < segment.end()) {
                return segment;
            }
        }
        return fail("offset " + offset + " is in no segment of " + volume.segments());
    }

    @Override
    public void close() throws Exception {
        await(vertx.close());
    }

    /** A client of {@code agent}, closed with it. */
    static AgentTestClient connect(AgentHarness agent) throws Exception {
        return agent.closeWith(new AgentTestClient(agent.port()));
    }

    /** A client of {@code agent} that completed the handshake, closed with it. */
    static AgentTestClient sidecar(AgentHarness agent) throws Exception {
        AgentTestClient client = connect(agent);
        client.hello(agent.agent.settings().authToken());
        return client;
    }

    static VolumeInfo volume(AgentTestClient client, long volumeId) throws Exception {
        VolumeList list = client.request(VolumeListRequest::new, VolumeList.class);
        return list.volumes().stream().filter(v -> v.volumeId() == volumeId).findFirst()
                .orElseThrow(() -> new AssertionError("volume " + volumeId + " not listed in " + list.volumes()));
    }

    /** A full sync, following {@code more}, as one concatenation of frames. */
    static List<SyncEntries> fullSync(AgentTestClient client, long volumeId, long epoch) throws Exception {
        List<SyncEntries> frames = new ArrayList<>();
        SyncEntries frame = client.request(id -> new SyncRequest(id, volumeId, epoch, 0), SyncEntries.class);
        frames.add(frame);
        while (frame.more()) {
            SyncEntries last = frame;
            frame =
                    client.request(id -> new SyncRequest(id, volumeId, last.epoch(), last.toPosition()),
                    SyncEntries.class);
            frames.add(frame);
        }
        return frames;
    }
}
