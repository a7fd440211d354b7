package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.*;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import io.vertx.ext.auth.JWTOptions;
import java.util.LinkedHashMap;
import java.util.Map;
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
        assertServed(TEXT, get("/3,01637037d6?jwt=" + t));
        assertServed(TEXT, get("/3,01637037d6").putHeader("Authorization", "BEARER " + t));
        assertServed(TEXT, get("/3,01637037d6").putHeader("Cookie", "AT=" + t));
        assertServed(TEXT, get("/3/01637037d6/hello.txt?jwt=" + t));
        assertServed(TEXT, get("/read?file_id=3,01637037d6&jwt=" + t));
    }

    /** The request is answered 200 with exactly {@code expected}. */
    private static void assertServed(byte[] expected, HttpRequest<Buffer> request) {
        HttpResponse<Buffer> r = await(request.send());
        assertEquals(200, r.statusCode(), () -> request.uri() + ": " + r.bodyAsString());
        assertArrayEquals(expected, r.body().getBytes(), request.uri());
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

    /*
     * Tokens made as SeaweedFS's Go code makes them (weed/security/jwt.go, golang-jwt v5), by an independent script:
     * python3 tools/seaweedfs_read_jwt.py read-secret 3,01637037d6 exp=4102444800 [nbf=...] [alg=...], pasted here.
     * Header {"alg":"HS256","typ":"JWT"}, claims {"fid":"3,01637037d6","exp":4102444800} (2100-01-01), base64url
     * without padding.
     */
    private static final String GO_VALID = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
            + ".eyJmaWQiOiIzLDAxNjM3MDM3ZDYiLCJleHAiOjQxMDI0NDQ4MDB9.8rzkmVeutnYuzfcSe3cTjaaIzI4lcTHfqID_tiNWEac";
    /** No exp: golang-jwt accepts it forever. */
    private static final String GO_NO_EXP = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
            + ".eyJmaWQiOiIzLDAxNjM3MDM3ZDYifQ.n1LwdpBP1v2MZTsSUuPKEJZcMP8HxB9NYCiVUnkL5UA";
    /** exp=1700000000 (2023). */
    private static final String GO_EXPIRED = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
            + ".eyJmaWQiOiIzLDAxNjM3MDM3ZDYiLCJleHAiOjE3MDAwMDAwMDB9.AgY3eplHnrL6stvlwN-NrOFt2by1r_z34Ah1IvTc6iQ";
    /** exp=4133980800, nbf=4102444800: not valid before 2100. */
    private static final String GO_NOT_YET_VALID = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
            + ".eyJmaWQiOiIzLDAxNjM3MDM3ZDYiLCJleHAiOjQxMzM5ODA4MDAsIm5iZiI6NDEwMjQ0NDgwMH0"
            + ".EgaE6AwIRMLYOxgpwGtarUtqRp5uCpaNVBACEA9EUEI";
    /** alg=none, no signature. */
    private static final String ALG_NONE = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0"
            + ".eyJmaWQiOiIzLDAxNjM3MDM3ZDYiLCJleHAiOjQxMDI0NDQ4MDB9.";
    /** alg=HS512, signed with the read key. */
    private static final String ALG_HS512 = "eyJhbGciOiJIUzUxMiIsInR5cCI6IkpXVCJ9"
            + ".eyJmaWQiOiIzLDAxNjM3MDM3ZDYiLCJleHAiOjQxMDI0NDQ4MDB9"
            + ".Uk7SLhQDl9cUw_Xq4iCMJ09YXg8vsmcE7UqQHlq-49Zcxv0Mk66USrV8aDjW5Wa8sf3fq_h8_VHyEsSR2qjT5Q";
    /** alg=RS256 over an HMAC-SHA256 made with the read key (the key-confusion attack). */
    private static final String ALG_RS256 = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"
            + ".eyJmaWQiOiIzLDAxNjM3MDM3ZDYiLCJleHAiOjQxMDI0NDQ4MDB9.bsaBdd1rwFo32yOGVrbbeN7FgWnzTn39MDsIDAXWY2I";
    /** Signed with "another-key". */
    private static final String WRONG_KEY = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
            + ".eyJmaWQiOiIzLDAxNjM3MDM3ZDYiLCJleHAiOjQxMDI0NDQ4MDB9.2_TOchZl3n_v0tOucsGtecISteyNK6gMijRpYBQL3EQ";
    /** For 3,02637037d6. */
    private static final String OTHER_FID = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
            + ".eyJmaWQiOiIzLDAyNjM3MDM3ZDYiLCJleHAiOjQxMDI0NDQ4MDB9.5__69pVduucHUdUPFUMzEJ_MDLoFAR4gqg-4vjpChYs";

    @Test
    void tokensMadeAsSeaweedfsMakesThemAreAccepted() throws Exception {
        assertServed(TEXT, get("/3,01637037d6?jwt=" + GO_VALID));
        assertServed(TEXT, get("/3,01637037d6").putHeader("Authorization", "Bearer " + GO_VALID));
        assertServed(TEXT, get("/3,01637037d6?jwt=" + GO_NO_EXP));
        assertServed(java.util.Arrays.copyOf(TEXT, 5), get("/read?file_id=3,01637037d6&size=5")
                .putHeader("Authorization", "Bearer " + GO_VALID));
    }

    @Test
    void eachRefusedTokenAnswers401WithItsReason() throws Exception {
        Map<String, String> reasons = new LinkedHashMap<>();
        reasons.put(GO_EXPIRED, "read token expired at 2023-11-14T22:13:20Z");
        reasons.put(GO_NOT_YET_VALID, "read token is not valid before 2100-01-01T00:00:00Z");
        reasons.put(ALG_NONE, "read token algorithm 'none' is not accepted (only HS256)");
        reasons.put(ALG_HS512, "read token algorithm 'HS512' is not accepted (only HS256)");
        reasons.put(ALG_RS256, "read token algorithm 'RS256' is not accepted (only HS256)");
        reasons.put(WRONG_KEY, "read token signature does not match the read key");
        reasons.put("garbage", "read token is not a JWT (header.claims.signature)");
        reasons.put(OTHER_FID, "read token is for file '3,02637037d6', not 3,01637037d6");
        reasons.put(GO_VALID.substring(0, GO_VALID.length() - 2) + "xx", "read token signature does not match the "
                + "read key");
        for (Map.Entry<String, String> e : reasons.entrySet()) {
            var r = await(get("/3,01637037d6").putHeader("Authorization", "Bearer " + e.getKey()).send());
            assertEquals(401, r.statusCode(), e.getValue());
            JsonObject body = r.bodyAsJsonObject();
            assertEquals(401, body.getInteger("code"));
            assertEquals(e.getValue(), body.getString("error"));
        }
        assertAllReleased();
    }

    @Test
    void theDeltaIsNotPartOfTheClaim() throws Exception {
        byte[] other = "the needle of key 2".getBytes();
        source.put(org.seaweedfs.rdma.volume.FileId.parse("3,02637037d6"), other, "", "", 0, java.util.Map.of());
        assertServed(other, get("/3,01637037d6_1?jwt=" + token(KEY, "3,01637037d6", 60)));
    }
}
