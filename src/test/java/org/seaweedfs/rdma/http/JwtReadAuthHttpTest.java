package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.*;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import io.vertx.ext.auth.JWTOptions;
import org.junit.jupiter.api.Test;

/** Read tokens as SeaweedFS signs them: HS256 over {"fid": "...", "exp": ...} with the read key. */
class JwtReadAuthHttpTest extends HttpApiTestBase {

    private static final String KEY = "read-secret";

    @Override
    String jwtReadKey() {
        return KEY;
    }

    private String token(String key, String fid, long expOffsetSeconds) {
        return token(vertx, key, fid, expOffsetSeconds);
    }

    /** A SeaweedFS read token for {@code fid}, expiring {@code expOffsetSeconds} from now. */
    static String token(io.vertx.core.Vertx vertx, String key, String fid, long expOffsetSeconds) {
        JWTAuth signer = JWTAuth.create(vertx, new JWTAuthOptions()
                .addPubSecKey(new PubSecKeyOptions().setAlgorithm("HS256").setBuffer(key)));
        long now = System.currentTimeMillis() / 1000;
        return signer.generateToken(new JsonObject().put("fid", fid).put("exp", now + expOffsetSeconds),
                new JWTOptions().setAlgorithm("HS256"));
    }

    @Test
    void validTokenInEachPlaceIsAccepted() throws Exception {
        String t = token(KEY, "3,01637037d6", 60);
        assertEquals(200, await(get("/3,01637037d6?jwt=" + t).send()).statusCode());
        assertEquals(200, await(get("/3,01637037d6").putHeader("Authorization", "BEARER " + t).send()).statusCode());
        assertEquals(200, await(get("/3,01637037d6").putHeader("Cookie", "AT=" + t).send()).statusCode());
        assertEquals(200, await(get("/3/01637037d6/hello.txt?jwt=" + t).send()).statusCode());
        assertEquals(200, await(get("/read?file_id=3,01637037d6&jwt=" + t).send()).statusCode());
    }

    @Test
    void missingExpiredForeignOrBadlySignedTokensAre401() throws Exception {
        String[] uris = {
                "/3,01637037d6",
                "/3,01637037d6?jwt=" + token(KEY, "3,01637037d6", -60),
                "/3,01637037d6?jwt=" + token(KEY, "3,02637037d6", 60),
                "/3,01637037d6?jwt=" + token("other-key", "3,01637037d6", 60),
                "/3,01637037d6?jwt=garbage",
        };
        for (String uri : uris) {
            var r = await(get(uri).send());
            assertEquals(401, r.statusCode(), uri);
            assertEquals(401, r.bodyAsJsonObject().getInteger("code"));
        }
        assertTrue(await(get(uris[2]).send()).bodyAsJsonObject().getString("error").contains("not 3,01637037d6"));
        assertAllReleased();
    }

    @Test
    void aReadSliceClientReadsSlicesWithoutATokenButNotNeedleUrls() throws Exception {
        var slice = await(get("/read?file_id=3,01637037d6&offset=1&size=4").send());
        assertEquals(200, slice.statusCode(), "loopback is in http.readSliceClients by default");
        assertEquals("ello", slice.bodyAsString());
        assertEquals(401, await(get("/3,01637037d6").send()).statusCode(), "needle URLs still need a token");
        assertEquals(401, await(get("/3/01637037d6/hello.txt").send()).statusCode());
    }

    @Test
    void theDeltaIsNotPartOfTheClaim() throws Exception {
        source.put(org.seaweedfs.rdma.volume.FileId.parse("3,02637037d6"), TEXT, "", "", 0, java.util.Map.of());
        assertEquals(200, await(get("/3,01637037d6_1?jwt=" + token(KEY, "3,01637037d6", 60)).send()).statusCode());
    }
}
