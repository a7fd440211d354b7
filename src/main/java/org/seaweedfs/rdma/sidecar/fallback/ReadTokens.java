package org.seaweedfs.rdma.sidecar.fallback;

import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.seaweedfs.rdma.volume.FileId;

/**
 * Read tokens for volume servers that require one ({@code jwt.signing.read.key} in SeaweedFS's security.toml),
 * byte for byte as SeaweedFS's {@code GenJwtForVolumeServer} makes them: header {@code {"alg":"HS256","typ":"JWT"}},
 * claims {@code {"fid":"<vid>,<key+cookie>","exp":<seconds>}} in that order, base64url without padding, HMAC-SHA256
 * with the same key the sidecar checks its own clients' tokens with ({@code http.jwtReadKey}: one cluster, one read
 * key). Sent as {@code Authorization: Bearer}, one of the places the volume server looks.
 */
public final class ReadTokens {

    /** SeaweedFS's default {@code jwt.signing.read.expires_after_seconds} (its code's; the scaffold shows 10). */
    public static final int EXPIRES_AFTER_SECONDS = 60;

    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();
    private static final String HEADER = BASE64URL.encodeToString(
            "{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));

    private final SecretKeySpec key;

    private ReadTokens(SecretKeySpec key) {
        this.key = key;
    }

    /** Null when {@code key} is null (volume servers need no token). */
    public static ReadTokens create(String key) {
        return key == null ? null : new ReadTokens(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8),
                "HmacSHA256"));
    }

    /** A token allowing a read of {@code fid} for {@link #EXPIRES_AFTER_SECONDS}. */
    public String forRead(FileId fid) {
        return forRead(fid, System.currentTimeMillis() / 1000);
    }

    /** As {@link #forRead(FileId)}, issued at {@code nowSeconds} (tests pin the bytes). */
    String forRead(FileId fid, long nowSeconds) {
        String claims = new JsonObject().put("fid", fid.toString()).put("exp", nowSeconds + EXPIRES_AFTER_SECONDS)
                .encode();
        String signed = HEADER + "." + BASE64URL.encodeToString(claims.getBytes(StandardCharsets.UTF_8));
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return signed + "." + BASE64URL.encodeToString(mac.doFinal(signed.getBytes(StandardCharsets.US_ASCII)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
