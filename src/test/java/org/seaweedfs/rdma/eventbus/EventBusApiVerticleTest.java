package org.seaweedfs.rdma.eventbus;

import static org.junit.jupiter.api.Assertions.*;

import io.vertx.core.Future;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.volume.FileId;

@ExtendWith(VertxExtension.class)
class EventBusApiVerticleTest {

    private static final FileId FID = FileId.parse("3,01637037d6");
    private static final byte[] DATA = "event bus needle bytes".getBytes();

    private Vertx vertx;
    private InMemoryNeedleSource source;

    @BeforeEach
    void deploy(Vertx vertx) throws Exception {
        this.vertx = vertx;
        source = new InMemoryNeedleSource(vertx);
        source.put(FID, DATA, "a.txt", "", 1_700_000_000L, Map.of("k", "v"));
        vertx.deployVerticle(new EventBusApiVerticle(source, 1 << 20, ReadMeters.noop(), 0)).await(10,
                TimeUnit.SECONDS);
    }

    private Message<Object> request(String address, Object body) throws Exception {
        return vertx.eventBus().request(address, body).await(10, TimeUnit.SECONDS);
    }

    private int failureCode(String address, Object body) throws Exception {
        Future<Message<Object>> f = vertx.eventBus().request(address, body);
        try {
            f.await(10, TimeUnit.SECONDS);
        } catch (ReplyException e) {
            return e.failureCode();
        }
        fail("expected a failure for " + body);
        return 0;
    }

    @Test
    void readRepliesWithBytesAndHeaders() throws Exception {
        Message<Object> m = request(EventBusApiVerticle.READ_ADDRESS, new JsonObject().put("fid", "3,01637037d6"));
        assertArrayEquals(DATA, ((Buffer) m.body()).getBytes());
        assertEquals(String.format("%08x", InMemoryNeedleSource.crc(DATA)), m.headers().get("etag"));
        assertEquals("text/plain", m.headers().get("content-type"));
        assertEquals("a.txt", m.headers().get("name"));
        assertEquals("1700000000", m.headers().get("last-modified"));
        assertEquals(Integer.toString(DATA.length), m.headers().get("size"));
        assertEquals("rdma", m.headers().get("source"));
        assertEquals(0, source.unreleased());
    }

    @Test
    void offsetAndLengthSliceAndClamp() throws Exception {
        Message<Object> m = request(EventBusApiVerticle.READ_ADDRESS,
                new JsonObject().put("fid", "3,01637037d6").put("offset", 6).put("length", 3));
        assertEquals("bus", m.body().toString());
        Message<Object> tail = request(EventBusApiVerticle.READ_ADDRESS,
                "{\"fid\":\"3,01637037d6\",\"offset\":17,\"length\":100}");
        assertEquals("bytes", tail.body().toString());
    }

    @Test
    void fallbackSourceIsNamed() throws Exception {
        source.source("read-through");
        Message<Object> m = request(EventBusApiVerticle.READ_ADDRESS, new JsonObject().put("fid", "3,01637037d6"));
        assertEquals("fallback", m.headers().get("source"));
    }

    @Test
    void compressedNeedlesAreDecompressedUnlessRaw() throws Exception {
        byte[] original = "zip me ".repeat(500).getBytes();
        source.putGzipped(FileId.parse("4,0100000001"), original, "z.txt", "text/plain");
        Message<Object> plain = request(EventBusApiVerticle.READ_ADDRESS, new JsonObject().put("fid", "4,0100000001"));
        assertArrayEquals(original, ((Buffer) plain.body()).getBytes());
        assertNull(plain.headers().get("content-encoding"));
        Message<Object> raw = request(EventBusApiVerticle.READ_ADDRESS,
                new JsonObject().put("fid", "4,0100000001").put("raw", true));
        assertArrayEquals(InMemoryNeedleSource.gzip(original), ((Buffer) raw.body()).getBytes());
        assertEquals("gzip", raw.headers().get("content-encoding"));
        assertEquals(0, source.unreleased());
    }

    @Test
    void statRepliesWithMetadata() throws Exception {
        JsonObject s =
                (JsonObject) request(EventBusApiVerticle.STAT_ADDRESS,
                new JsonObject().put("fid", "3,01637037d6")).body();
        assertEquals("3,01637037d6", s.getString("fid"));
        assertEquals(DATA.length, s.getLong("size"));
        assertEquals("a.txt", s.getString("name"));
        assertEquals("text/plain", s.getString("contentType"));
        assertEquals(1_700_000_000L, s.getLong("lastModified"));
        assertEquals(new JsonObject().put("k", "v"), s.getJsonObject("pairs"));
        assertFalse(s.getBoolean("compressed"));
        assertEquals("rdma", s.getString("source"));
    }

    @Test
    void aTooLargeNeedleFails400SayingSo() throws Exception {
        FileId big = FileId.parse("5,0100000001");
        source.fail(big, ReadFailure.tooLarge(big, 5L << 30, 64L << 20));
        for (String address : new String[] {EventBusApiVerticle.READ_ADDRESS, EventBusApiVerticle.STAT_ADDRESS}) {
            ReplyException e = assertThrows(ReplyException.class, () -> vertx.eventBus()
                    .request(address, new JsonObject().put("fid", big.toString())).await(10, TimeUnit.SECONDS));
            assertEquals(400, e.failureCode(), "the contract's codes have no 413");
            assertTrue(e.getMessage().startsWith("too large: "), e.getMessage());
            assertTrue(e.getMessage().contains("sidecar.maxNeedleBytes"), e.getMessage());
        }
    }

    @Test
    void badRequestsFail400() throws Exception {
        for (String address : new String[] {EventBusApiVerticle.READ_ADDRESS, EventBusApiVerticle.STAT_ADDRESS}) {
            assertEquals(400, failureCode(address, "not json"));
            assertEquals(400, failureCode(address, 42));
            assertEquals(400, failureCode(address, new JsonObject()));
            assertEquals(400, failureCode(address, new JsonObject().put("fid", "3,zz")));
            assertEquals(400, failureCode(address, new JsonObject().put("fid", "3,01637037d6").put("offset", -1)));
            assertEquals(400, failureCode(address, new JsonObject().put("fid", "3,01637037d6").put("length", "x")));
            assertEquals(400, failureCode(address, new JsonObject().put("fid", "3,01637037d6").put("raw", "yes")));
        }
    }

    @Test
    void missingAndWrongCookieFail404() throws Exception {
        assertEquals(404, failureCode(EventBusApiVerticle.READ_ADDRESS, new JsonObject().put("fid", "9,01637037d6")));
        assertEquals(404, failureCode(EventBusApiVerticle.READ_ADDRESS, new JsonObject().put("fid", "3,01637037d7")));
        assertEquals(404, failureCode(EventBusApiVerticle.STAT_ADDRESS, new JsonObject().put("fid", "9,01637037d6")));
    }

    @Test
    void offsetPastTheEndFails416() throws Exception {
        assertEquals(416, failureCode(EventBusApiVerticle.READ_ADDRESS,
                new JsonObject().put("fid", "3,01637037d6").put("offset", DATA.length + 1)));
        assertEquals(0, source.unreleased());
    }

    @Test
    void readPathFailuresKeepTheirCode(VertxTestContext ctx) {
        ReadFailure.Kind[] kinds = {ReadFailure.Kind.CORRUPT, ReadFailure.Kind.UNAVAILABLE, ReadFailure.Kind.TIMEOUT};
        var done = ctx.checkpoint(kinds.length * 2);
        for (int i = 0; i < kinds.length; i++) {
            String fid = "5,0" + (i + 1) + "00000001";
            ReadFailure.Kind kind = kinds[i];
            source.fail(FileId.parse(fid), new ReadFailure(kind, "injected"));
            for (String address : new String[] {EventBusApiVerticle.READ_ADDRESS, EventBusApiVerticle.STAT_ADDRESS}) {
                vertx.eventBus().request(address,
                        new JsonObject().put("fid", fid)).onComplete(ctx.failing(e -> ctx.verify(() -> {
                    assertEquals(kind.code, ((ReplyException) e).failureCode());
                    assertEquals("injected", e.getMessage());
                    done.flag();
                })));
            }
        }
    }

    /**
     * Requests queued on the consumer's loop together are all handled before their replies leave, in one batch (a
     * requester on another loop is woken once for them, not once each), in the order they were answered.
     */
    @Test
    void repliesToRequestsQueuedTogetherLeaveTogetherAfterThem() throws Exception {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        Context[] consumer = new Context[1];
        vertx.eventBus().addInboundInterceptor(dc -> {
            if (dc.message().address().equals(EventBusApiVerticle.READ_ADDRESS)) {
                consumer[0] = Vertx.currentContext();
                events.add("request " + ((JsonObject) dc.body()).getInteger("n"));
            }
            dc.next();
        });
        vertx.eventBus().addOutboundInterceptor(dc -> {
            if (!dc.message().address().startsWith("seaweedfs.")) {
                events.add("reply " + dc.message().headers().get("size"));
            }
            dc.next();
        });
        request(EventBusApiVerticle.READ_ADDRESS, new JsonObject().put("fid", "3,01637037d6").put("n", 0));
        events.clear();
        // Sent from the consumer's own loop, so all three are queued there before it handles the first.
        Promise<List<Integer>> lengths = Promise.promise();
        consumer[0].runOnContext(v -> {
            List<Future<Message<Object>>> answers = new ArrayList<>();
            for (int n = 1; n <= 3; n++) {
                answers.add(vertx.eventBus().request(EventBusApiVerticle.READ_ADDRESS,
                        new JsonObject().put("fid", "3,01637037d6").put("length", n).put("n", n)));
            }
            Future.all(answers).map(all -> answers.stream().map(a -> ((Buffer) a.result().body()).length()).toList())
                    .onComplete(lengths);
        });
        assertEquals(List.of(1, 2, 3), lengths.future().await(10, TimeUnit.SECONDS));
        String size = Integer.toString(DATA.length);
        assertEquals(List.of("request 1", "request 2", "request 3", "reply " + size, "reply " + size, "reply " + size),
                events);
    }

    @Test
    void localRepliesHandOverTheBufferWithoutCopy() {
        LocalBufferCodec codec = new LocalBufferCodec();
        Buffer b = Buffer.buffer("x");
        assertSame(b, codec.transform(b));
        Buffer wire = Buffer.buffer("pre");
        codec.encodeToWire(wire, Buffer.buffer("payload"));
        assertEquals("payload", codec.decodeFromWire(3, wire).toString());
    }
}
