package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.client.NeedleException;
import org.seaweedfs.rdma.client.NeedleResult;
import org.seaweedfs.rdma.testing.TarEntries;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

/**
 * Many needles in one call on every face, against the real stack (an agent serving SeaweedFS's fixture volumes and
 * a volume written here with a gzip-stored, a large, a deleted and a corrupted needle; a sidecar reading them over
 * UCX): {@code POST /batch}, the typed client's and the event bus's {@code readMany}. Every byte is compared with
 * the volume files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BatchEndToEndTest {

    private static final long VOLUME = 9;
    private static final long LAST_MODIFIED = 1_712_345_678L;

    private Path dir;
    private Stack agent;
    private Stack sidecar;
    private WebClient client;
    /** Every needle that reads, by fid: the bytes a GET answers and the last-modified. */
    private final Map<String, Truth> truth = new LinkedHashMap<>();
    private String corrupt;
    private String deletedHere;
    private List<String> deletedFixture;

    private record Truth(byte[] plain, long lastModified) {
    }

    @BeforeAll
    void start() throws IOException {
        dir = Files.createTempDirectory("seaweedfs-rdma-batch-");
        Fixtures.copyDir("volumes", dir);
        writeVolume();
        for (long vid : new long[] {1, 2}) {
            FixtureNeedles.live(dir, vid).forEach(e ->
                    truth.put(e.fid().toString(), new Truth(e.plain(), e.lastModified())));
        }
        deletedFixture = FixtureNeedles.deleted(dir, 2).stream().map(FileId::toString).toList();
        agent = Stack.agent(dir, 0);
        sidecar = Stack.sidecar(agent.agentPort(), "");
        client = WebClient.create(sidecar.vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
                .setDefaultPort(sidecar.httpPort()).setDecompressionSupported(false));
    }

    /** Volume 9: needles of many sizes (one larger than a read buffer), one gzip-stored, one deleted, one corrupt. */
    private void writeVolume() throws IOException {
        Random random = new Random(9);
        long corruptAt;
        try (VolumeWriter writer = VolumeWriter.create(dir, "", VOLUME, 3, IndexFormat.of(false))) {
            int[] sizes = {1, 100, 4096, 4097, 65_536, 100_000, 3 * 1024 * 1024 + 17};
            for (int i = 0; i < sizes.length; i++) {
                byte[] data = new byte[sizes[i]];
                random.nextBytes(data);
                writer.append(NewNeedle.builder(i + 1, 0x1000 + i, data).name("n" + i)
                        .lastModified(LAST_MODIFIED + i).build());
                truth.put(fid(i + 1, 0x1000 + i), new Truth(data, LAST_MODIFIED + i));
            }
            byte[] text = "a gzip-stored needle, decompressed as a GET without Accept-Encoding does. ".repeat(200)
                    .getBytes();
            writer.append(NewNeedle.builder(50, 0x50, gzip(text)).name("text.txt").compressed(true)
                    .lastModified(LAST_MODIFIED).build());
            truth.put(fid(50, 0x50), new Truth(text, LAST_MODIFIED));
            byte[] doomed = new byte[5000];
            random.nextBytes(doomed);
            corruptAt = writer.append(NewNeedle.builder(60, 0x60, doomed).build());
            corrupt = fid(60, 0x60);
            writer.append(NewNeedle.builder(70, 0x70, new byte[300]).build());
            writer.delete(70, 0x70, 0);
            deletedHere = fid(70, 0x70);
        }
        try (FileChannel dat = FileChannel.open(dir.resolve(VOLUME + ".dat"), StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            long at = corruptAt + 16 + 4 + 1000; // a byte of the data, past the header and the size
            ByteBuffer one = ByteBuffer.allocate(1);
            dat.read(one, at);
            one.put(0, (byte) (one.get(0) ^ 0x5a)).rewind();
            dat.write(one, at);
        }
    }

    @AfterAll
    void stop() throws IOException {
        try {
            sidecar.close();
        } finally {
            agent.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static String fid(long key, int cookie) {
        return new FileId(VOLUME, key, cookie).toString();
    }

    private static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        }
        return out.toByteArray();
    }

    /** Every needle that reads, shuffled, with the ones that cannot be read among them. */
    private List<String> mixed() {
        List<String> fids = new ArrayList<>(truth.keySet());
        Collections.shuffle(fids, new Random(42));
        fids.add(3, corrupt);
        fids.add(10, deletedHere);
        fids.add(20, "2,7777777712345678"); // a key volume 2 never had
        fids.add(30, "2,0306bfd556");       // a live key, the wrong cookie
        fids.add(40, "77,0123456789");      // a volume nobody serves
        fids.addAll(50, deletedFixture);
        fids.add(fids.get(0)); // a fid asked twice is served twice
        return fids;
    }

    private int expectedStatus(String fid) {
        return fid.equals(corrupt) ? 502 : 404;
    }

    private HttpResponse<Buffer> post(String body) {
        return await(client.post("/batch").sendBuffer(Buffer.buffer(body)));
    }

    @Test
    void aBatchAnswersATarOfEveryNeedleInRequestOrderAsAGetWould() {
        List<String> fids = mixed();
        HttpResponse<Buffer> r = post(String.join("\n", fids) + "\n");
        assertEquals(200, r.statusCode());
        assertEquals("application/x-tar", r.getHeader("Content-Type"));
        List<TarEntries.Entry> entries = TarEntries.read(r.body().getBytes());
        assertEquals(fids.size(), entries.size());
        for (int i = 0; i < fids.size(); i++) {
            String fid = fids.get(i);
            TarEntries.Entry e = entries.get(i);
            Truth t = truth.get(fid);
            if (t == null) {
                assertEquals(fid + ".error", e.name(), "member " + i);
                JsonObject error = new JsonObject(e.text());
                assertEquals(expectedStatus(fid), error.getInteger("status"), fid + ": " + error);
                assertTrue(!error.getString("error").isEmpty(), fid);
            } else {
                assertEquals(fid, e.name(), "member " + i);
                assertArrayEquals(t.plain(), e.data(), fid);
                assertEquals(t.lastModified(), e.mtime(), fid);
            }
        }
    }

    @Test
    void aCorruptNeedleIsAnErrorMemberBetweenRightNeighbours() {
        String before = fid(3, 0x1002);
        String after = fid(50, 0x50);
        List<TarEntries.Entry> entries =
                TarEntries.read(post(before + "\n" + corrupt + "\r\n" + after).body().getBytes());
        assertEquals(3, entries.size());
        assertArrayEquals(truth.get(before).plain(), entries.get(0).data());
        assertEquals(corrupt + ".error", entries.get(1).name());
        assertEquals(502, new JsonObject(entries.get(1).text()).getInteger("status"));
        assertArrayEquals(truth.get(after).plain(), entries.get(2).data(), "the gzip-stored needle, decompressed");
    }

    @Test
    void malformedAndEmptyBodies() {
        HttpResponse<Buffer> bad = post(fid(1, 0x1000) + "\n\nnot-a-fid\n");
        assertEquals(400, bad.statusCode());
        assertTrue(bad.bodyAsJsonObject().getString("error").startsWith("line 3: "), bad.bodyAsString());
        HttpResponse<Buffer> empty = post("");
        assertEquals(200, empty.statusCode());
        assertEquals(List.of(), TarEntries.read(empty.body().getBytes()), "an empty archive");
    }

    /** Runs {@code call} on an event loop of the sidecar's Vert.x, as a verticle of an application would. */
    private <T> T onEventLoop(Function<NeedleClient, Future<T>> call, NeedleClient needles) {
        Context context = sidecar.vertx.getOrCreateContext();
        Promise<T> result = Promise.promise();
        context.runOnContext(v -> call.apply(needles).onComplete(result));
        return await(result.future());
    }

    @Test
    void readManyOnBothClientsGivesEachNeedleOrItsOwnFailureInOrder() {
        List<String> fids = new ArrayList<>(mixed());
        fids.add(5, "not-a-fid");
        NeedleClient local = sidecar.server.client();
        NeedleClient overBus = NeedleClient.overEventBus(sidecar.vertx);
        for (NeedleClient needles : List.of(local, overBus)) {
            List<NeedleResult> results = onEventLoop(c -> c.readMany(fids), needles);
            assertEquals(fids.size(), results.size());
            for (int i = 0; i < fids.size(); i++) {
                String fid = fids.get(i);
                NeedleResult r = results.get(i);
                assertEquals(fid, r.fid());
                Truth t = truth.get(fid);
                if (t != null) {
                    assertTrue(r.succeeded(), fid + ": " + r.failure());
                    assertArrayEquals(t.plain(), r.needle().body().getBytes(), fid);
                    assertEquals(t.lastModified(), r.needle().lastModified(), fid);
                    assertEquals(t.plain().length, r.needle().size(), fid);
                    assertEquals("rdma", r.needle().source(), fid);
                } else {
                    assertNull(r.needle(), fid);
                    NeedleException.Kind kind = fid.equals("not-a-fid") ? NeedleException.Kind.BAD_REQUEST
                            : fid.equals(corrupt) ? NeedleException.Kind.CORRUPT : NeedleException.Kind.NOT_FOUND;
                    assertEquals(kind, r.failure().kind(), fid + ": " + r.failure().getMessage());
                }
            }
            // The same values whichever client read them.
            assertEquals(onEventLoop(c -> c.read(fids.get(0)), needles).etag(), results.get(0).needle().etag());
            // Lent, each result handed on in order: the same bytes, or the same failure.
            List<String> lent = new ArrayList<>();
            int count = onEventLoop(c -> c.readMany(fids, r -> lent.add(r.fid() + " " + (r.succeeded()
                    ? Base64.getEncoder().encodeToString(r.needle().body().getBytes()) + " " + r.needle().etag()
                    : r.failure().kind()))), needles);
            assertEquals(fids.size(), count);
            assertEquals(results.stream().map(r -> r.fid() + " " + (r.succeeded()
                    ? Base64.getEncoder().encodeToString(r.needle().body().getBytes()) + " " + r.needle().etag()
                    : r.failure().kind())).toList(), lent);
        }
    }

    @Test
    void theEventBusRefusesTooManyFidsAsAWholeAndAnsweredOneFrame() {
        JsonArray many = new JsonArray();
        for (int i = 0; i <= 10_000; i++) {
            many.add("1,01bb51ad02");
        }
        Throwable refused = await(sidecar.vertx.eventBus()
                .request("seaweedfs.needle.readMany", new JsonObject().put("fids", many)).transform(ar ->
                        Future.succeededFuture(ar.cause())));
        assertEquals(400, ((ReplyException) refused).failureCode());
        assertTrue(refused.getMessage().contains("sidecar.batch.maxFids"), refused.getMessage());
        Throwable notAList = await(sidecar.vertx.eventBus()
                .request("seaweedfs.needle.readMany", new JsonObject().put("fids", "1,01bb51ad02"))
                .transform(ar -> Future.succeededFuture(ar.cause())));
        assertEquals(400, ((ReplyException) notAList).failureCode());
        Object frame = await(sidecar.vertx.eventBus().request("seaweedfs.needle.readMany",
                new JsonObject().put("fids", new JsonArray().add("1,01bb51ad02")))).body();
        assertTrue(frame instanceof Buffer, "one binary frame");
        assertEquals("SWNF", ((Buffer) frame).getString(0, 4));
    }
}
