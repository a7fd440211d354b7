package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.volume.FileId;

/** The event-bus API ({@code seaweedfs.needle.read} / {@code .stat}) of the real sidecar, reading over UCX. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedStack.class)
class EventBusEndToEndTest {

    private static final String READ = "seaweedfs.needle.read";
    private static final String STAT = "seaweedfs.needle.stat";

    private EventBus bus;
    private List<FixtureNeedles.Expected> needles;

    @BeforeAll
    void connect() {
        SharedStack.Running stack = SharedStack.get();
        bus = stack.sidecar.vertx.eventBus();
        needles = FixtureNeedles.live(stack.volumes, 1);
        needles =
                java.util.stream.Stream.concat(needles.stream(),
                FixtureNeedles.live(stack.volumes, 2).stream()).toList();
    }

    private FixtureNeedles.Expected expected(String fid) {
        FileId id = FileId.parse(fid);
        return needles.stream().filter(e -> e.fid().equals(id)).findFirst().orElseThrow();
    }

    private Message<Object> request(String address, Object body) {
        return await(bus.request(address, body));
    }

    private int failure(String address, Object body) {
        ReplyException e = assertThrows(ReplyException.class, () -> request(address, body), String.valueOf(body));
        assertTrue(e.getMessage() != null && !e.getMessage().isEmpty(), "a failure says why");
        return e.failureCode();
    }

    private static byte[] bytes(Message<Object> m) {
        return ((Buffer) m.body()).getBytes();
    }

    @Test
    void readRepliesWithTheBytesAndTheirMetadata() {
        for (String fid : List.of("1,01bb51ad02", "1,02dfabcb70", "2,0306bfd555", "2,08578634e1")) {
            FixtureNeedles.Expected e = expected(fid);
            Message<Object> m = request(READ, new JsonObject().put("fid", fid));
            assertArrayEquals(e.plain(), bytes(m), fid);
            assertEquals(e.etag(), m.headers().get("etag"), fid);
            assertEquals(e.name(), m.headers().get("name"), fid);
            assertEquals(Long.toString(e.lastModified()), m.headers().get("last-modified"), fid);
            assertEquals(Integer.toString(e.plain().length), m.headers().get("size"), fid);
            assertEquals("rdma", m.headers().get("source"), fid);
            String type = m.headers().get("content-type");
            assertEquals(e.mime().isEmpty() ? "application/octet-stream" : e.mime(), type, fid);
        }
    }

    @Test
    void offsetAndLengthSliceTheBytesAndRawKeepsGzip() {
        FixtureNeedles.Expected go = expected("1,01bb51ad02");
        byte[] plain = go.plain();
        Message<Object> slice =
                request(READ, new JsonObject().put("fid", "1,01bb51ad02").put("offset", 100).put("length", 50));
        assertArrayEquals(Arrays.copyOfRange(plain, 100, 150), bytes(slice));
        Message<Object> tail = request(READ, new JsonObject().put("fid", "1,01bb51ad02")
                .put("offset", plain.length - 7).put("length", 1000));
        assertArrayEquals(Arrays.copyOfRange(plain, plain.length - 7, plain.length), bytes(tail),
                "cut short at the end");

        Message<Object> raw = request(READ, new JsonObject().put("fid", "1,01bb51ad02").put("raw", true));
        assertArrayEquals(go.stored(), bytes(raw));
        assertEquals("gzip", raw.headers().get("content-encoding"));
        assertEquals(Integer.toString(go.stored().length), raw.headers().get("size"));
        assertEquals(go.etag(), raw.headers().get("etag"));
    }

    @Test
    void statRepliesWithTheMetadata() {
        FixtureNeedles.Expected e = expected("1,01bb51ad02");
        JsonObject stat = (JsonObject) request(STAT, new JsonObject().put("fid", "1,01bb51ad02")).body();
        assertEquals("1,01bb51ad02", stat.getString("fid"));
        assertEquals(e.etag(), stat.getString("etag"));
        assertEquals(e.name(), stat.getString("name"));
        assertEquals(e.mime(), stat.getString("mime"));
        assertEquals(e.lastModified(), stat.getLong("lastModified"));
        assertTrue(stat.getBoolean("compressed"));
        assertEquals("rdma", stat.getString("source"));
        assertEquals(404, failure(STAT, new JsonObject().put("fid", "2,0306bfd556")));
    }

    @Test
    void failuresCarryHttpLikeCodes() {
        assertEquals(400, failure(READ, "this is not JSON"));
        assertEquals(400, failure(READ, new JsonObject().put("fid", "2,xyz")));
        assertEquals(400, failure(READ, new JsonObject().put("fid", "2,0306bfd555").put("offset", -1)));
        assertEquals(400, failure(STAT, new JsonObject()));
        assertEquals(404, failure(READ, new JsonObject().put("fid", "2,0306bfd556")), "wrong cookie");
        assertEquals(404, failure(READ, new JsonObject().put("fid", "2,7777777712345678")), "missing key");
        for (FileId deleted : FixtureNeedles.deleted(SharedStack.get().volumes, 2)) {
            assertEquals(404, failure(READ, new JsonObject().put("fid", deleted.toString())), deleted.toString());
        }
        int size = expected("2,0306bfd555").plain().length;
        assertEquals(416, failure(READ, new JsonObject().put("fid", "2,0306bfd555").put("offset", size + 1)));
    }
}
