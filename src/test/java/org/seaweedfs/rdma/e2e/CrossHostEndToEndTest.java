package org.seaweedfs.rdma.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.seaweedfs.rdma.testing.RequiredEnvironment;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.testing.ClientHost;
import org.seaweedfs.rdma.testing.ClientHostMain;
import org.seaweedfs.rdma.testing.HostProcess;
import org.seaweedfs.rdma.testing.NetnsCluster;
import org.seaweedfs.rdma.testing.PrometheusText;
import org.seaweedfs.rdma.testing.StandInMain;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.ec.EcFiles;
import org.seaweedfs.rdma.volume.ec.EcLayout;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;
import org.seaweedfs.rdma.volume.ec.EcWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The product across hosts: six network namespaces on one bridge (root only; skipped elsewhere
 * unless {@code netns} is required: {@link RequiredEnvironment}), each running the
 * real {@code serve} (or a stand-in) as its own process. Two agents hold volume 1 and volume 2 and share an EC
 * volume (7, SeaweedFS's volume 1 encoded 3 + 2, shards split between them); two sidecars find agents through the
 * master stand-in (sidecar1 knows agent1 up front, sidecar2 none) and form a clustered event bus; a client host
 * reads over HTTP, over the event bus and as {@code weed mount} does. UCX runs over TCP only ({@code ucx.tls:
 * [tcp]}: hosts share no memory), and every endpoint's lanes are read from UCX's own log lines.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CrossHostEndToEndTest {

    private static final Logger LOG = LoggerFactory.getLogger(CrossHostEndToEndTest.class);
    private static final long EC_VID = 7;
    private static final int AGENT_PORT = 18515;
    private static final int SIDECAR_PORT = 8081;
    private static final int AGENT_HTTP_PORT = 18080;
    private static final String UCX_GETS = "seaweedfs_rdma_ucx_operations_total";
    private static final String ONE_SIDED = "seaweedfs_rdma_location_cache_lookups_onesided_total";
    private static final String READ_THROUGH_BYTES = "seaweedfs_rdma_agent_read_through_bytes_total";
    private static final Pattern LANE = Pattern.compile("\\w+\\(([^)]*)\\)");

    /** Volumes, configurations and every process's log; kept after the run (target/ is the build's). */
    private final Path tmp = Path.of("target", "cross-host").toAbsolutePath();

    private NetnsCluster cluster;
    private final List<HostProcess> processes = new ArrayList<>();
    private ClientHost client;
    private List<FixtureNeedles.Expected> volume1;
    private List<FixtureNeedles.Expected> volume2;

    @BeforeAll
    void startCluster() throws Exception {
        Optional<String> unavailable = NetnsCluster.unavailable();
        RequiredEnvironment.assume(RequiredEnvironment.NETNS, unavailable.isEmpty(),
                () -> "no hosts as network namespaces here: " + unavailable.get());
        if (Files.exists(tmp)) {
            try (var old = Files.walk(tmp)) {
                old.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(tmp);
        volume1 = FixtureNeedles.live(Fixtures.volumes(), 1);
        volume2 = FixtureNeedles.live(Fixtures.volumes(), 2);
        Path[] dirs = volumes();
        cluster = NetnsCluster.create("master", "agent1", "agent2", "sidecar1", "sidecar2", "client");
        try {
            String a1 = cluster.ip("agent1");
            String a2 = cluster.ip("agent2");
            processes.add(HostProcess.java(cluster, "master", tmp.resolve("master.log"), StandInMain.class.getName(),
                    List.of("master", cluster.ip("master") + ":9333", "1=" + a1 + ":8080", "2=" + a2 + ":8080",
                            EC_VID + "=" + a1 + ":8080," + a2 + ":8080")));
            processes.add(agent("agent1", dirs[0]));
            processes.add(agent("agent2", dirs[1]));
            processes.forEach(p -> p.awaitLine("ready:"));
            processes.add(sidecar("sidecar1", "['" + a1 + ":" + AGENT_PORT + "']", "[]"));
            processes.get(processes.size() - 1).awaitLine("ready:");
            processes.add(sidecar("sidecar2", "[]", "['" + cluster.ip("sidecar1") + ":5701']"));
            client = new ClientHost(cluster, "client", tmp.resolve("client.log"));
            processes.get(processes.size() - 1).awaitLine("ready:");
            LOG.info("Cluster up: {}", cluster.addresses());
        } catch (RuntimeException | AssertionError e) {
            stopCluster();
            throw e;
        }
    }

    @AfterAll
    void stopCluster() {
        if (cluster == null) {
            return;
        }
        try {
            if (client != null) {
                client.close();
            }
            processes.forEach(HostProcess::close);
        } finally {
            cluster.close();
        }
    }

    /** {agent1's, agent2's}: volume 1 and EC shards 0 and 3 on agent1; volume 2 and shards 1, 2 and 4 on agent2. */
    private Path[] volumes() throws Exception {
        Path a = Files.createDirectories(tmp.resolve("agent1"));
        Path b = Files.createDirectories(tmp.resolve("agent2"));
        for (String f : List.of("1.dat", "1.idx")) {
            Files.copy(Fixtures.volumes().resolve(f), a.resolve(f));
        }
        for (String f : List.of("2.dat", "2.idx")) {
            Files.copy(Fixtures.volumes().resolve(f), b.resolve(f));
        }
        Path ec = Files.createDirectories(tmp.resolve("ec"));
        EcWriter.write(EcTestVolumes.fixtureDat(), EcTestVolumes.fixtureIdx(), new EcFiles(ec, "", EC_VID),
                EcLayout.of(3, 2), IndexFormat.OFFSET4, EcTestVolumes.ENCODE_TS_NS);
        try (var files = Files.list(ec)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                Matcher shard = Pattern.compile(EC_VID + "\\.ec(\\d\\d)").matcher(name);
                if (!shard.matches()) {
                    Files.copy(f, a.resolve(name));
                    Files.copy(f, b.resolve(name));
                } else {
                    int id = Integer.parseInt(shard.group(1));
                    Files.copy(f, (id == 0 || id == 3 ? a : b).resolve(name));
                }
            }
        }
        return new Path[] {a, b};
    }

    private HostProcess agent(String host, Path dir) {
        String ip = cluster.ip(host);
        return HostProcess.serve(cluster, host, tmp, host, "roles: [agent]\n"
                + "http: {host: " + ip + ", port: " + AGENT_HTTP_PORT + "}\n"
                + "agent: {listen: '" + ip + ":" + AGENT_PORT + "', volumeDirs: ['" + dir + "']}\n"
                + "ucx: {tls: [tcp]}\n");
    }

    private HostProcess sidecar(String host, String agents, String members) {
        return HostProcess.serve(cluster, host, tmp, host, "roles: [sidecar]\n"
                + "http: {host: 0.0.0.0, port: " + SIDECAR_PORT + "}\n"
                + "sidecar: {agents: " + agents + ", master: '" + cluster.ip("master") + ":9333', "
                + "fallback: [read-through]}\n"
                + "ucx: {tls: [tcp]}\n"
                + "cluster: {enabled: true, host: " + cluster.ip(host) + ", port: 5701, members: " + members + "}\n");
    }

    private String sidecarUrl(String sidecar) {
        return "http://" + cluster.ip(sidecar) + ":" + SIDECAR_PORT;
    }

    private String agentUrl(String agent) {
        return "http://" + cluster.ip(agent) + ":" + AGENT_HTTP_PORT;
    }

    /** The process's /metrics, fetched from the client host. */
    private PrometheusText metrics(String url) {
        JsonObject r = client.getText(url + "/metrics");
        assertEquals(200, r.getInteger("status"), url + "/metrics: " + r);
        return PrometheusText.parse(r.getString("body"));
    }

    /**
     * Every {@code step}th needle of both volumes and of the EC volume, each with the bytes a client gets (every
     * needle once is enough; the other paths read a sample, so the class stays quick).
     */
    private Map<String, byte[]> needles(int step) {
        Map<String, byte[]> out = new java.util.LinkedHashMap<>();
        for (int i = 0; i < volume1.size(); i += step) {
            FixtureNeedles.Expected e = volume1.get(i);
            out.put(e.fid().toString(), e.plain());
            out.put(new FileId(EC_VID, e.fid().key(), e.fid().cookie()).toString(), e.plain());
        }
        for (int i = 0; i < volume2.size(); i += step) {
            out.put(volume2.get(i).fid().toString(), volume2.get(i).plain());
        }
        return out;
    }

    /** Until the sidecar lists both agents up (sidecars find agents beside the volumes they are asked for). */
    private void awaitBothAgents(String sidecar) {
        List<String> want = List.of(cluster.ip("agent1") + ":" + AGENT_PORT, cluster.ip("agent2") + ":" + AGENT_PORT);
        Await.until(sidecar + " has both agents up", () -> client.getJson(sidecarUrl(sidecar) + "/status"),
                s -> s.getJsonArray("agents").stream().map(JsonObject.class::cast)
                .filter(a -> "up".equals(a.getString("state"))).map(a -> a.getString("address")).toList()
                .containsAll(want));
    }

    @Test
    @Order(1)
    void everyNeedleReadsAcrossHostsOverUcxTcpFromAgentsFoundThroughTheMaster() {
        for (String sidecar : List.of("sidecar1", "sidecar2")) {
            // The first read of each volume makes the sidecar ask the master where it lives.
            for (String fid : List.of(volume1.get(0).fid().toString(), volume2.get(0).fid().toString())) {
                client.get(sidecarUrl(sidecar) + "/" + fid);
            }
            awaitBothAgents(sidecar);
            PrometheusText before = metrics(sidecarUrl(sidecar));
            Map<String, byte[]> needles = needles(sidecar.equals("sidecar1") ? 1 : 4);
            needles.forEach((fid, plain) -> {
                JsonObject r = client.get(sidecarUrl(sidecar) + "/" + fid);
                assertEquals(200, r.getInteger("status"), sidecar + " " + fid + ": " + r);
                assertEquals(ClientHostMain.sha256(plain), r.getString("sha256"), sidecar + " " + fid);
                assertEquals("rdma", r.getJsonObject("headers").getString("x-source"), sidecar + " " + fid);
            });
            // The header is the read path's word; the UCX worker's own count of gets and the location cache's of
            // misses found in an agent's exposed index are the parts' that did the work.
            PrometheusText after = metrics(sidecarUrl(sidecar));
            long gets = after.sum(UCX_GETS) - before.sum(UCX_GETS);
            assertTrue(gets >= needles.size(), sidecar + ": " + gets + " UCX gets for " + needles.size() + " reads");
            assertTrue(after.sum(ONE_SIDED) > before.sum(ONE_SIDED),
                    sidecar + " found no needle in an agent's exposed index across hosts");
        }
        for (String agent : List.of("agent1", "agent2")) {
            assertEquals(0, metrics(agentUrl(agent)).sum(READ_THROUGH_BYTES), agent + " copied needle bytes");
        }
        for (HostProcess p : processes.subList(1, processes.size())) {
            List<String> lanes = p.ucxLanes();
            LOG.info("UCX lanes of {}: {}", p.host, lanes);
            assertFalse(lanes.isEmpty(), p.host + " logged no UCX endpoint lanes:\n" + p.tail(30));
            for (String lane : lanes) {
                Matcher m = LANE.matcher(lane);
                assertTrue(m.find(), p.host + ": " + lane);
                do {
                    for (String transport : m.group(1).split(",\\s*")) {
                        assertTrue(transport.startsWith("tcp/"), p.host + " uses " + transport + " (" + lane + ")");
                    }
                } while (m.find());
            }
        }
    }

    @Test
    @Order(2)
    void aClientHostReadsThroughTheEventBusClusteredAcrossBothSidecarsHosts() {
        client.join(cluster.ip("client"), cluster.ip("sidecar1") + ":5701");
        String first = volume1.get(0).fid().toString();
        Await.until("the sidecars' consumers are known on the client's node", () -> client.busRead(first),
                r -> !r.containsKey("error"));
        long[] before = {readsServed("sidecar1"), readsServed("sidecar2")};
        Map<String, byte[]> needles = needles(4);
        needles.forEach((fid, plain) -> {
            JsonObject r = client.busRead(fid);
            assertEquals(ClientHostMain.sha256(plain), r.getString("sha256"), fid + ": " + r);
            assertEquals("rdma", r.getString("source"), fid);
        });
        long one = readsServed("sidecar1") - before[0];
        long two = readsServed("sidecar2") - before[1];
        assertTrue(one > 0 && two > 0, "both sidecars answer on the bus: " + one + " and " + two);
        assertTrue(one + two >= needles.size(), one + " + " + two + " reads for " + needles.size() + " needles");
    }

    private long readsServed(String sidecar) {
        return client.getJson(sidecarUrl(sidecar) + "/status").getJsonObject("reads").getLong("total");
    }

    /** weed mount: /health once, then /read slices naming the volume server the master lists. */
    @Test
    @Order(3)
    void theWeedMountContractFromAClientHost() {
        JsonObject health = client.getJson(sidecarUrl("sidecar1") + "/health");
        assertEquals("healthy", health.getString("status"), health.encode());
        assertTrue(health.getJsonObject("rdma").getBoolean("enabled"), health.encode());
        FixtureNeedles.Expected one = volume1.stream().filter(e -> !e.compressed() && e.stored().length > 2000)
                .findFirst().orElseThrow();
        FixtureNeedles.Expected two = volume2.stream().filter(e -> !e.compressed() && e.stored().length > 2000)
                .findFirst().orElseThrow();
        FileId ec = new FileId(EC_VID, one.fid().key(), one.fid().cookie());
        for (var slice : List.of(Map.entry(one.fid(), one), Map.entry(two.fid(), two), Map.entry(ec, one))) {
            byte[] stored = slice.getValue().stored();
            int offset = stored.length / 3;
            int size = Math.min(1000, stored.length - offset);
            String server = cluster.ip(slice.getKey().volumeId() == 2 ? "agent2" : "agent1") + ":8080";
            JsonObject r = client.get(sidecarUrl("sidecar1") + "/read?file_id=" + slice.getKey() + "&offset=" + offset
                    + "&size=" + size + "&volume_server=" + server);
            assertEquals(200, r.getInteger("status"), slice.getKey() + ": " + r);
            assertEquals(ClientHostMain.sha256(Arrays.copyOfRange(stored, offset, offset + size)),
                    r.getString("sha256"),
                    slice.getKey().toString());
            assertEquals("true", r.getJsonObject("headers").getString("x-rdma-used"), slice.getKey() + ": " + r);
        }
    }

    /** A partition of one pair only: sidecar2 loses agent1, reads the rest, and is back on RDMA once it heals. */
    @Test
    @Order(4)
    void aSidecarCutOffFromOneAgentKeepsTheOtherAndIsBackOnRdmaWhenThePathIs() {
        String onAgent1 = volume1.get(1).fid().toString();
        String onAgent2 = volume2.get(1).fid().toString();
        String agent1 = cluster.ip("agent1") + ":" + AGENT_PORT;
        cluster.block("sidecar2", "agent1", true);
        try {
            Await.until("sidecar2 finds agent1 down", () -> client.getJson(sidecarUrl("sidecar2") + "/status"),
                    s -> s.getJsonArray("agents").stream().map(JsonObject.class::cast)
                            .anyMatch(a -> agent1.equals(a.getString("address"))
                                    && !"up".equals(a.getString("state"))));
            assertRdma("sidecar2", onAgent2, volume2.get(1).plain());
            assertRdma("sidecar1", onAgent1, volume1.get(1).plain());
            // Its fallback is the agent's read-through, over the cut path too: unavailable for now, not missing.
            JsonObject cut = client.getText(sidecarUrl("sidecar2") + "/" + onAgent1);
            assertEquals(503, cut.getInteger("status"), cut.encode());
            assertTrue(cut.getJsonObject("headers").containsKey("retry-after"), cut.encode());
            assertTrue(cut.getString("body").contains(agent1), "names the agent that is down: " + cut.encode());
        } finally {
            cluster.block("sidecar2", "agent1", false);
        }
        Await.until("sidecar2 reads agent1's volume over RDMA again", () -> client.get(sidecarUrl("sidecar2") + "/"
                + onAgent1), r -> r.getInteger("status") == 200 && "rdma".equals(r.getJsonObject("headers")
                .getString("x-source")));
        // While sidecar2 reconnected, a read may have been served by a fallback (the agent's read-through): from
        // here on every read is RDMA's, which the agents' copied bytes show.
        long copied1 = metrics(agentUrl("agent1")).sum(READ_THROUGH_BYTES);
        long copied2 = metrics(agentUrl("agent2")).sum(READ_THROUGH_BYTES);
        assertRdma("sidecar2", onAgent1, volume1.get(1).plain());
        assertRdma("sidecar2", onAgent2, volume2.get(1).plain());
        assertEquals(copied1, metrics(agentUrl("agent1")).sum(READ_THROUGH_BYTES), "agent1 copied needle bytes");
        assertEquals(copied2, metrics(agentUrl("agent2")).sum(READ_THROUGH_BYTES), "agent2 copied needle bytes");
    }

    private void assertRdma(String sidecar, String fid, byte[] plain) {
        JsonObject r = client.get(sidecarUrl(sidecar) + "/" + fid);
        assertEquals(200, r.getInteger("status"), sidecar + " " + fid + ": " + r);
        assertEquals(ClientHostMain.sha256(plain), r.getString("sha256"), sidecar + " " + fid);
        assertEquals("rdma", r.getJsonObject("headers").getString("x-source"), sidecar + " " + fid);
    }
}
