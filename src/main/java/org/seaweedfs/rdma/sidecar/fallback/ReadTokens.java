package org.seaweedfs.rdma.sidecar.fallback;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import org.seaweedfs.rdma.volume.FileId;

/**
 * Read tokens for volume servers that require one ({@code jwt.signing.read.key} in SeaweedFS's security.toml): an
 * HS256 JWT with the claims SeaweedFS's {@code GenJwtForVolumeServer} gives, {@code fid} ({@code <vid>,<key+cookie>})
 * and {@code exp}, signed with the same key the sidecar checks its own clients' tokens with ({@code http.jwtReadKey}:
 * one cluster, one read key). Sent as {@code Authorization: Bearer}, one of the places the volume server looks.
 */
public final class ReadTokens {

    /** SeaweedFS's default {@code jwt.signing.read.expires_after_seconds}. */
    public static final int EXPIRES_AFTER_SECONDS = 60;

    private final JWTAuth signer;

    private ReadTokens(JWTAuth signer) {
        this.signer = signer;
    }

    /** Null when {@code key} is null (volume servers need no token). */
    public static ReadTokens create(Vertx vertx, String key) {
        if (key == null) {
            return null;
        }
        return new ReadTokens(JWTAuth.create(vertx, new JWTAuthOptions()
                .addPubSecKey(new PubSecKeyOptions().setAlgorithm("HS256").setBuffer(key))));
    }

    /** A token allowing a read of {@code fid} for {@link #EXPIRES_AFTER_SECONDS}. */
    public String forRead(FileId fid) {
        return signer.generateToken(new JsonObject().put("fid", fid.toString()),
                new JWTOptions().setAlgorithm("HS256").setExpiresInSeconds(EXPIRES_AFTER_SECONDS));
    }
}
