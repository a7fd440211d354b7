package org.seaweedfs.rdma.sidecar.fallback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.VolumeWriter;

/** Read tokens to JWT-secured volume servers, the needle's pairs, and empty needles over the HTTP fallback. */
@ExtendWith(VertxExtension.class)
class VolumeServerSourceTokensTest {

    private static final String KEY = "cluster-read-key";
    private static final FileId WITH_PAIRS = new FileId(7, 0x21, 0x0102_0304);
    private static final FileId EMPTY = new FileId(7, 0x22, 0x0506_0708);
    private static final byte[] DATA = "pairs travel as headers".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private Vertx vertx;
    private StubVolumeServer volumeServer;

    @BeforeEach
    void start(Vertx vertx) throws IOException {
        this.vertx = vertx;
        try (VolumeWriter writer = VolumeWriter.create(dir, "", 7, 3, IndexFormat.OFFSET4)) {
            writer.append(NewNeedle.builder(WITH_PAIRS.key(), WITH_PAIRS.cookie(), DATA)
                    .name("p.txt").pairs("{\"Color\":\"blue\",\"X-Owner\":\"ann\"}").build());
            writer.append(NewNeedle.builder(EMPTY.key(), EMPTY.cookie(), new byte[0]).build());
        }
        volumeServer = await(new StubVolumeServer(vertx).start(dir));
    }

    @AfterEach
    void stop() {
        await(volumeServer.stop());
    }

    private VolumeServerSource source(String key) {
        return new VolumeServerSource(VolumeServerSource.newClient(vertx, 4), null, List.of(), 1 << 20,
                Duration.ofSeconds(5), ReadTokens.create(key));
    }

    private NeedleContent read(VolumeServerSource source, FileId fid) {
        return await(source.read(fid, volumeServer.url()));
    }

    @Test
    void theNeedlesPairsComeBackWithoutTheServersOwnHeaders() {
        NeedleContent content = read(source(null), WITH_PAIRS);
        assertEquals(Map.of("Color", "blue", "X-Owner", "ann"), content.stat().pairs());
        assertEquals("p.txt", content.stat().name());
    }

    @Test
    void anEmptyNeedleIsEmptyContent() {
        NeedleContent content = read(source(null), EMPTY);
        assertEquals(0, content.stat().size());
        assertTrue(content.chunks().isEmpty());
    }

    @Test
    void aJwtSecuredVolumeServerGetsATokenSignedWithTheReadKey() {
        volumeServer.requireReadToken(KEY);
        assertEquals(DATA.length, read(source(KEY), WITH_PAIRS).stat().size());
        ReadFailure refused = assertFailure(source(null));
        assertEquals(ReadFailure.Kind.UNAVAILABLE, refused.kind());
        assertTrue(refused.getMessage().contains("refused the read token"), refused.getMessage());
        assertEquals(ReadFailure.Kind.UNAVAILABLE, assertFailure(source("another-key")).kind(),
                "a token of another key");
    }

    /** The bytes SeaweedFS's Go code signs: python3 tools/seaweedfs_read_jwt.py KEY 7,2101020304 exp=4102444800. */
    @Test
    void aTokenIsTheBytesSeaweedfsWouldSign() {
        assertEquals("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJmaWQiOiI3LDIxMDEwMjAzMDQiLCJleHAiOjQxMDI0NDQ4MDB9"
                + ".b5LIGKvLZWmi_FLJ--AP-WL4-fN6zMAxip_g796z2CM",
                ReadTokens.create(KEY).forRead(WITH_PAIRS, 4_102_444_800L - ReadTokens.EXPIRES_AFTER_SECONDS));
    }

    private ReadFailure assertFailure(VolumeServerSource source) {
        return assertThrows(ReadFailure.class, () -> read(source, WITH_PAIRS));
    }
}
