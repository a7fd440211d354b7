package org.seaweedfs.rdma.http;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import org.seaweedfs.rdma.volume.FileId;

/**
 * SeaweedFS read authorization: an HS256 JWT signed with the read key, whose {@code fid} claim names the
 * file read; found in the {@code jwt} query parameter, else {@code Authorization: Bearer}, else the
 * {@code AT} cookie. {@code exp} and {@code nbf} are enforced by Vert.x's JWT provider.
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

    /** Succeeds when the request may read {@code fid}; else fails with the reason (answered as 401). */
    Future<Void> check(HttpServerRequest request, FileId fid) {
        if (provider == null) {
            return Future.succeededFuture();
        }
        String token = token(request);
        if (token == null) {
            return Future.failedFuture("missing read token (jwt parameter, Authorization: Bearer or AT cookie)");
        }
        return provider.authenticate(new TokenCredentials(token))
                .recover(e -> Future.failedFuture("invalid read token: " + e.getMessage()))
                .compose(user -> {
                    String claim = user.principal().getString("fid", "");
                    return claimNames(claim, fid) ? Future.succeededFuture()
                            : Future.failedFuture("read token is for file '" + claim + "', not " + fid);
                });
    }

    private static boolean claimNames(String claim, FileId fid) {
        try {
            return FileId.parse(claim).equals(fid);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String token(HttpServerRequest request) {
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
