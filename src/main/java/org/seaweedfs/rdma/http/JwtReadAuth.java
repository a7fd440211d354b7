package org.seaweedfs.rdma.http;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;
import org.seaweedfs.rdma.volume.FileId;

/**
 * SeaweedFS read authorization: an HS256 JWT signed with the read key, whose {@code fid} claim names the
 * file read; found in the {@code jwt} query parameter, else {@code Authorization: Bearer}, else the
 * {@code AT} cookie. The signature, {@code exp} and {@code nbf} are checked by Vert.x's JWT provider (no leeway, as
 * golang-jwt); a token without {@code exp} does not expire, as in SeaweedFS. Only HS256 is accepted, the algorithm
 * SeaweedFS's master signs with: {@code none}, RS256 (the key-confusion attack) and any other algorithm are refused
 * before the signature is looked at. Each refusal says why.
 */
final class JwtReadAuth {

    private final JWTAuth provider;

    private JwtReadAuth(JWTAuth provider) {
        this.provider = provider;
    }

    /** Null key: no authorization (every read is allowed). */
    static JwtReadAuth create(Vertx vertx, String readKey) {
        if (readKey == null) {
            return new JwtReadAuth(null);
        }
        return new JwtReadAuth(JWTAuth.create(vertx, new JWTAuthOptions()
                .addPubSecKey(new PubSecKeyOptions().setAlgorithm("HS256").setBuffer(readKey))));
    }

    /** Whether reads need a token (a read key is set). */
    boolean required() {
        return provider != null;
    }

    /** Succeeds when the request may read {@code fid}; else fails with the reason (answered as 401). */
    Future<Void> check(HttpServerRequest request, FileId fid) {
        if (provider == null) {
            return Future.succeededFuture();
        }
        return check(token(request), fid);
    }

    /** As {@link #check(HttpServerRequest, FileId)}, with the token given (null: none). */
    Future<Void> check(String token, FileId fid) {
        if (provider == null) {
            return Future.succeededFuture();
        }
        if (token == null) {
            return Future.failedFuture("missing read token (jwt parameter, Authorization: Bearer or AT cookie)");
        }
        JsonObject claims;
        try {
            claims = readHeaderAndClaims(token);
        } catch (IllegalArgumentException e) {
            return Future.failedFuture(e.getMessage());
        }
        return provider.authenticate(new TokenCredentials(token))
                .recover(e -> Future.failedFuture(refusal(e, claims)))
                .compose(user -> {
                    String claim = user.principal().getString("fid", "");
                    return claimNames(claim, fid) ? Future.succeededFuture()
                            : Future.failedFuture("read token is for file '" + claim + "', not " + fid);
                });
    }

    /** The token's claims, after checking that it is a JWT whose header names HS256. */
    private static JsonObject readHeaderAndClaims(String token) {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("read token is not a JWT (header.claims.signature)");
        }
        JsonObject header = json(parts[0], "header");
        Object alg = header.getValue("alg");
        if (!"HS256".equals(alg)) {
            throw new IllegalArgumentException("read token algorithm '" + alg + "' is not accepted (only HS256)");
        }
        return json(parts[1], "claims");
    }

    private static JsonObject json(String part, String what) {
        try {
            return new JsonObject(new String(Base64.getUrlDecoder().decode(part), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException | DecodeException e) {
            throw new IllegalArgumentException("read token " + what + " is not base64url JSON");
        }
    }

    /** Why the provider refused a well-formed HS256 token: a bad signature, else the time claims. */
    private static String refusal(Throwable e, JsonObject claims) {
        String message = String.valueOf(e.getMessage());
        if (message.toLowerCase(Locale.ROOT).contains("signature")) {
            return "read token signature does not match the read key";
        }
        long now = System.currentTimeMillis() / 1000;
        if (claims.getValue("exp") instanceof Number exp && now >= exp.longValue()) {
            return "read token expired at " + Instant.ofEpochSecond(exp.longValue());
        }
        if (claims.getValue("nbf") instanceof Number nbf && now < nbf.longValue()) {
            return "read token is not valid before " + Instant.ofEpochSecond(nbf.longValue());
        }
        return "invalid read token: " + message;
    }

    private static boolean claimNames(String claim, FileId fid) {
        try {
            return FileId.parse(claim).equals(fid);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The request's read token: the {@code jwt} parameter, else {@code Authorization: Bearer}, else the AT cookie. */
    static String token(HttpServerRequest request) {
        String jwt = request.getParam("jwt");
        if (jwt != null && !jwt.isEmpty()) {
            return jwt;
        }
        String auth = request.getHeader("Authorization");
        if (auth != null && auth.length() > 7 && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return auth.substring(7).trim();
        }
        Cookie at = request.getCookie("AT");
        return at == null || at.getValue().isEmpty() ? null : at.getValue();
    }
}
