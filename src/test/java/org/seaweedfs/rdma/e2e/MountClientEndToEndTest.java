package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.sidecar.StubMaster;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;
import org.seaweedfs.rdma.volume.Fixtures;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code weed mount} contract end to end, with a client doing exactly what the mount does
 * ({@link MountStyleClient}: {@code /health} once, then {@code /read} slices, re-reading from the volume server
 * whatever is not marked RDMA). Two agents: A serves volumes 1 and 3, B volume 2; B is stopped. The SeaweedFS
 * master and volume server are stand-ins serving the same fixture files.
 */
@ExtendWith(VertxExtension.class)
class MountClientEndToEndTest {

    private static final Logger LOG = LoggerFactory.getLogger(MountClientEndToEndTest.class);
    private static final String KEY = "cluster-read-key";
    private static final String FAST = """
              readTimeout: 3s
              ping: {interval: 500ms}
            """;

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();
    private StubVolumeServer volumeServer;
    private String masterSetting;
    private Stack agentA;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private <T extends AutoCloseable> T opened(T closeable) {
        open.add(closeable);
        return closeable;
    }

    /** Agent A (volumes 1, 3) up, agent B (volume 2) started for the sidecar to connect and then stopped. */
    private Stack sidecarWithOneOfTwoAgentsDown(Vertx vertx, String httpExtra) throws IOException {
        Path all = Fixtures.copyDir("volumes", Files.createDirectory(dir.resolve("all")));
        Path a = Files.createDirectory(dir.resolve("a"));
        Path b = Files.createDirectory(dir.resolve("b"));
        for (String f : new String[]{"1.dat", "1.idx", "3.dat", "3.idx"}) {
            Files.copy(all.resolve(f), a.resolve(f));
        }
        for (String f : new String[]{"2.dat", "2.idx"}) {
            Files.copy(all.resolve(f), b.resolve(f));
        }
        volumeServer = await(new StubVolumeServer(vertx).start(all));
        opened(() -> await(volumeServer.stop()));
        StubMaster master = await(new StubMaster(vertx).start());
        opened(() -> await(master.stop()));
        for (int vid = 1; vid <= 3; vid++) {
            master.locate(vid, volumeServer.url());
        }
        masterSetting = "  master: '127.0.0.1:" + master.port() + "'\n  fallback: [http]\n" + FAST;
        agentA = opened(Stack.agent(a, 0));
        Stack agentB = Stack.agent(b, 0);
        Stack sidecar = opened(Stack.start(Stack.sidecarYaml(agentA.agentPort(), masterSetting, httpExtra)
                .replace("agents: ['127.0.0.1:" + agentA.agentPort() + "']",
                        "agents: ['127.0.0.1:" + agentA.agentPort() + "', '127.0.0.1:" + agentB.agentPort() + "']")));
        until("the sidecar connected to both agents", sidecar::agentUp);
        agentB.close();
        until("the sidecar saw agent B go down",
                () -> sidecar.server.connections().peers().stream().anyMatch(p -> !p.isUp()));
        return sidecar;
    }

    private Stack secondSidecar(String httpExtra) {
        Stack sidecar = opened(Stack.start(Stack.sidecarYaml(agentA.agentPort(), masterSetting, httpExtra)));
        until("the second sidecar connected to agent A", sidecar::agentUp);
        return sidecar;
    }

    /** A third of the way in, up to 4 KiB: a slice of every live needle with data of {@code volumeId}. */
    private record Slice(String fid, long offset, byte[] expected) {
    }

    private List<Slice> slices(long volumeId) {
        List<Slice> out = new ArrayList<>();
        for (FixtureNeedles.Expected e : FixtureNeedles.live(dir.resolve("all"), volumeId)) {
            byte[] plain = e.plain();
            int offset = plain.length / 3;
            int size = Math.min(4096, plain.length - offset);
            if (size > 0) {
                out.add(new Slice(e.fid().toString(), offset, Arrays.copyOfRange(plain, offset, offset + size)));
            }
        }
        assertFalse(out.isEmpty(), "volume " + volumeId + " has needles to read");
        return out;
    }

    private static void readAll(MountStyleClient mount, List<Slice> slices) {
        for (Slice s : slices) {
            assertArrayEquals(s.expected(), mount.read(s.fid(), s.offset(), s.expected().length), s.fid());
        }
    }

    @Test
    void withOneOfTwoAgentsDownTheMountKeepsRdmaAndReadsEverySliceOfTheLiveAgentOverIt(Vertx vertx) throws IOException {
        Stack sidecar = sidecarWithOneOfTwoAgentsDown(vertx, "");
        try (MountStyleClient mount = new MountStyleClient(vertx, sidecar.httpPort(), volumeServer.url(), null)) {
            assertTrue(mount.start(), "health says healthy with RDMA enabled: the mount turns RDMA on");
            List<Slice> live = slices(1); // volume 3 (also agent A's) holds no needle with data
            readAll(mount, live);
            assertEquals(live.size(), mount.rdmaSlices, "every slice of the live agent's volumes came over RDMA");
            assertEquals(0, mount.volumeServerSlices);

            List<Slice> down = slices(2);
            readAll(mount, down);
            assertEquals(down.size(), mount.volumeServerSlices, "the down agent's slices: read from the volume server");
            assertEquals(0, mount.discardedBytes, "answered at once (503), no fallback bytes thrown away");
            assertEquals(1, mount.healthChecks);
        }
    }

    /**
     * The two answers to a /read RDMA cannot serve, measured: with http.readSliceFallback false the sidecar answers
     * 503 at once and only the mount's own read crosses from the volume server; with true the sidecar fetches the
     * slice, the mount throws it away (not RDMA) and reads it again. Timings are logged, not
     * asserted.
     */
    @Test
    void aSliceRdmaCannotServeCostsOneTransferWhenRefusedAndTwoWhenServedByTheFallback(Vertx vertx) throws IOException {
        Stack refusing = sidecarWithOneOfTwoAgentsDown(vertx, "");
        Stack serving = secondSidecar(", readSliceFallback: true");
        List<Slice> down = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            down.addAll(slices(2));
        }
        long sliceBytes = down.stream().mapToLong(s -> s.expected().length).sum();
        for (int round = 0; round < 2; round++) { // the first round warms the connections and code paths
            try (MountStyleClient refused = new MountStyleClient(vertx, refusing.httpPort(), volumeServer.url(), null);
                 MountStyleClient served = new MountStyleClient(vertx, serving.httpPort(), volumeServer.url(), null)) {
                assertTrue(refused.start());
                served.start();
                served.rdmaOn();
                long before = volumeServer.bodyBytes();
                long t0 = System.nanoTime();
                readAll(refused, down);
                long refusedNanos = System.nanoTime() - t0;
                long refusedTransfer = volumeServer.bodyBytes() - before;

                before = volumeServer.bodyBytes();
                t0 = System.nanoTime();
                readAll(served, down);
                long servedNanos = System.nanoTime() - t0;
                long servedTransfer = volumeServer.bodyBytes() - before;

                assertEquals(sliceBytes, refusedTransfer, "refused: the mount's own read only");
                assertEquals(0, refused.discardedBytes);
                assertEquals(2 * sliceBytes, servedTransfer, "served: the sidecar's fetch and the mount's re-read");
                assertEquals(sliceBytes, served.discardedBytes);
                LOG.info("/read RDMA cannot serve, {} slices, {} bytes: refuse (503) {} us/slice, {} volume-server "
                        + "bytes; "
                                + "serve from the fallback {} us/slice, {} volume-server bytes",
                        down.size(), sliceBytes, refusedNanos / 1000 / down.size(), refusedTransfer,
                        servedNanos / 1000 / down.size(), servedTransfer);
            }
        }
    }

    @Test
    void aJwtSecuredSidecarServesTheMountOverRdmaWhileNeedleUrlsNeedAToken(Vertx vertx) throws IOException {
        Stack sidecar = sidecarWithOneOfTwoAgentsDown(vertx, ", jwtReadKey: " + KEY);
        volumeServer.requireReadToken(KEY);
        JWTAuth master = JWTAuth.create(vertx, new JWTAuthOptions()
                .addPubSecKey(new PubSecKeyOptions().setAlgorithm("HS256").setBuffer(KEY)));
        Function<String, String> tokenFromLookup = fid -> master.generateToken(new JsonObject().put("fid", fid),
                new JWTOptions().setAlgorithm("HS256").setExpiresInSeconds(60));
        try (MountStyleClient mount =
                new MountStyleClient(vertx, sidecar.httpPort(), volumeServer.url(), tokenFromLookup)) {
            assertTrue(mount.start());
            List<Slice> live = slices(1);
            readAll(mount, live);
            assertEquals(live.size(), mount.rdmaSlices, "the mount (loopback, no token) reads every slice over RDMA");
            readAll(mount, slices(2));
        }
        WebClient client = WebClient.create(vertx);
        String fid = slices(1).get(0).fid();
        assertEquals(401, await(client.get(sidecar.httpPort(), "127.0.0.1", "/" + fid).send()).statusCode(),
                "a needle URL without a token");
        assertEquals(200,
                await(client.get(sidecar.httpPort(), "127.0.0.1", "/" + fid + "?jwt=" + tokenFromLookup.apply(fid))
                .send()).statusCode());
        String down = slices(2).get(0).fid();
        var fallback =
                await(client.get(sidecar.httpPort(), "127.0.0.1", "/" + down + "?jwt=" + tokenFromLookup.apply(down))
                .send());
        assertEquals(200, fallback.statusCode(), "the HTTP fallback presented a read token the volume server accepted");
        assertEquals("http", fallback.getHeader("X-Source"));
    }
}
