package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.testing.TarEntries;
import org.seaweedfs.rdma.volume.FileId;

/**
 * Read authorization in {@code POST /batch}: each fid's token sits beside it on its line (else the request's token
 * counts, as for a GET) and is checked as a GET's would be; a fid it does not allow is a 401 error member, and its
 * neighbours are served.
 */
class BatchJwtHttpTest extends HttpApiTestBase {

    private static final String KEY = "batch-read-secret";
    private static final FileId OTHER = FileId.parse("4,0b000000cc");
    private static final byte[] OTHER_BYTES = "another needle".getBytes();

    @Override
    String jwtReadKey() {
        return KEY;
    }

    private String token(FileId fid, long expOffsetSeconds) {
        return JwtReadAuthHttpTest.token(vertx, KEY, fid.toString(), expOffsetSeconds);
    }

    private List<TarEntries.Entry> post(String body, String bearer) {
        var request = client.post("/batch");
        if (bearer != null) {
            request.putHeader("Authorization", "Bearer " + bearer);
        }
        var r = await(request.sendBuffer(Buffer.buffer(body)));
        assertEquals(200, r.statusCode(), r.bodyAsString());
        return TarEntries.read(r.body().getBytes());
    }

    private static int status(TarEntries.Entry e) {
        return new JsonObject(e.text()).getInteger("status");
    }

    @Test
    void eachFidIsCheckedWithTheTokenBesideIt() {
        source.put(OTHER, OTHER_BYTES, "", "", 0, Map.of());
        String body = FID + " " + token(FID, 60) + "\n"          // its own token: served
                + OTHER + " " + token(FID, 60) + "\n"            // a token for another fid: 401
                + FID + "\n"                                      // no token, none on the request: 401
                + OTHER + "\t" + token(OTHER, -10) + "\n"         // expired: 401
                + OTHER + " not.a.jwt\n"                          // garbage: 401
                + OTHER + " " + token(OTHER, 60) + "\n";          // its own: served
        List<TarEntries.Entry> entries = post(body, null);
        assertEquals(List.of(FID.toString(), OTHER + ".error", FID + ".error", OTHER + ".error", OTHER + ".error",
                OTHER.toString()), entries.stream().map(TarEntries.Entry::name).toList());
        assertArrayEquals(TEXT, entries.get(0).data());
        for (int i = 1; i < 5; i++) {
            assertEquals(401, status(entries.get(i)), entries.get(i).text());
        }
        assertEquals("read token is for file '" + FID + "', not " + OTHER,
                new JsonObject(entries.get(1).text()).getString("error"));
        assertArrayEquals(OTHER_BYTES, entries.get(5).data());
        assertAllReleased();
    }

    @Test
    void aLineWithoutATokenUsesTheRequestsAsAGetWould() {
        source.put(OTHER, OTHER_BYTES, "", "", 0, Map.of());
        List<TarEntries.Entry> entries = post(FID + "\n" + OTHER + "\n", token(FID, 60));
        assertArrayEquals(TEXT, entries.get(0).data());
        assertEquals(OTHER + ".error", entries.get(1).name());
        assertEquals(401, status(entries.get(1)));
    }
}
