package org.seaweedfs.rdma.config;

import static org.junit.jupiter.api.Assertions.*;

import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.seaweedfs.rdma.polling.PollingPolicy;

@ExtendWith(VertxExtension.class)
class ConfigLoaderTest {

    private static RdmaConfig parse(String yaml) {
        return ConfigLoader.parse(yaml, "test.yaml", Map.of());
    }

    private static String problem(String yaml, Map<String, String> env) {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "test.yaml", env));
        assertEquals(1, e.problems().size(), e.getMessage());
        return e.problems().get(0);
    }

    @Test
    void defaults() {
        RdmaConfig c = parse("");
        assertEquals(Set.of(Role.SIDECAR), c.roles());
        assertEquals("0.0.0.0", c.http().host());
        assertEquals(8081, c.http().port());
        assertEquals(HttpConfig.autoInstances(Runtime.getRuntime().availableProcessors()), c.http().instances());
        assertEquals(256, c.sidecar().maxInFlightReads());
        assertEquals(PollingPolicy.DEFAULT_MICROS, c.idlePollMicros());
        assertEquals(NetworkTransport.AUTO, c.http().transport());
        assertEquals(Duration.ofSeconds(60), c.http().headerTimeout());
        assertEquals(Duration.ofSeconds(60), c.http().idleTimeout());
        assertEquals(10_000, c.http().maxConnections());
        assertFalse(c.http().readAuthEnabled());
        assertEquals(new HostPort("0.0.0.0", 18515), c.agent().listen());
        assertEquals(List.of(), c.agent().volumeDirs());
        assertFalse(c.agent().offset5());
        assertNull(c.agent().authToken());
        assertEquals("mapped", c.agent().volumeMemory());
        assertEquals(4L << 30, c.agent().volumeMemoryLimit());
        assertEquals(List.of(new HostPort("127.0.0.1", 18515)), c.sidecar().agents());
        assertNull(c.sidecar().master());
        assertEquals(List.of(), c.sidecar().volumeServers());
        assertEquals(64L << 20, c.sidecar().maxNeedleBytes());
        assertEquals(new SidecarConfig.BufferPool(1 << 20, 256L << 20), c.sidecar().bufferPool());
        assertEquals(Duration.ofSeconds(5), c.sidecar().readTimeout());
        assertEquals(new SidecarConfig.Ping(Duration.ofSeconds(2)), c.sidecar().ping());
        assertEquals(Duration.ofSeconds(1), c.sidecar().ping().timeout(), "half the interval");
        assertEquals(new SidecarConfig.Breaker(Duration.ofSeconds(10)), c.sidecar().breaker());
        assertEquals(List.of(Fallback.READ_THROUGH, Fallback.HTTP), c.sidecar().fallback());
        assertEquals(new UcxConfig(List.of(), List.of(), "peer", "auto"), c.ucx());
        assertTrue(c.metrics().enabled());
    }

    @Test
    void idlePollMicros() {
        assertEquals(0, parse("idlePollMicros: 0").idlePollMicros());
        assertEquals(150,
                ConfigLoader.parse("", "test.yaml", Map.of("SEAWEEDFS_RDMA_IDLE_POLL_MICROS", "150")).idlePollMicros());
    }

    /** A key earlier versions accepted is named and said to be gone, in the file and in the environment. */
    @ParameterizedTest
    @ValueSource(strings = {"http.awakeMicros", "sidecar.eventBusAwakeMicros", "ucx.progress", "ucx.eventLoopLanes",
            "ucx.maxRemoteKeys", "agent.pollInterval", "agent.segmentBytes", "agent.retireGrace",
            "agent.maxRepliesInFlight", "agent.maxHeap", "sidecar.maxHeap", "sidecar.eventBusInstances",
            "sidecar.reconnect.quickBackoff",
            "sidecar.reconnect.baseBackoff", "sidecar.reconnect.maxBackoff", "sidecar.ping.timeout",
            "sidecar.breaker.minimumCalls", "sidecar.retry.maxAttempts", "sidecar.retry.waitDuration"})
    void removedKeysAreRejectedByName(String key) {
        String message = problem(key + ": 1", Map.of());
        assertTrue(message.startsWith(key + ": this key was removed ("), message);
        int dot = key.lastIndexOf('.');
        String nested = key.substring(0, dot) + ": {" + key.substring(dot + 1) + ": 1}";
        assertTrue(problem(nested, Map.of()).startsWith(key + ": this key was removed ("), nested);
        String variable = ConfigKey.envName(key);
        assertTrue(problem("", Map.of(variable, "1")).startsWith(variable + ": this key was removed ("), variable);
    }

    /** A removed key's message says what took its place, so the reader knows what to set instead, if anything. */
    @Test
    void removedKeysSayWhatReplacesThem() {
        assertEquals("sidecar.ping.timeout: this key was removed (half of sidecar.ping.interval); delete it",
                problem("sidecar: {ping: {interval: 4s, timeout: 1s}}", Map.of()));
        assertEquals("SEAWEEDFS_RDMA_SIDECAR_RECONNECT_MAX_BACKOFF: this key was removed (fixed: waits of at most "
                        + "250ms for 30s after an agent is lost, then growing to 30s); delete it",
                problem("", Map.of("SEAWEEDFS_RDMA_SIDECAR_RECONNECT_MAX_BACKOFF", "300ms")));
    }

    @Test
    void clusterKeysAreValidatedAndEnvOverridable() {
        assertEquals(ClusterConfig.disabled(), parse("").cluster());
        ClusterConfig c = ConfigLoader.parse("cluster: {enabled: true, host: 10.0.0.7, port: 5801}", "test.yaml",
                Map.of("SEAWEEDFS_RDMA_CLUSTER_MEMBERS", "10.0.0.5:5701,10.0.0.6:5701")).cluster();
        assertEquals(new ClusterConfig(true, "10.0.0.7", 5801,
                List.of(HostPort.parse("10.0.0.5:5701"), HostPort.parse("10.0.0.6:5701"))), c);
        assertTrue(ConfigLoader.parse("", "test.yaml",
                Map.of("SEAWEEDFS_RDMA_CLUSTER_ENABLED", "true")).cluster().enabled());
        assertTrue(problem("cluster: {enabled: true, host: 0.0.0.0}", Map.of()).startsWith("cluster.host: "));
        assertTrue(problem("cluster: {port: 70000}", Map.of()).startsWith("cluster.port: "));
        assertTrue(problem("cluster: {members: [nohostport]}", Map.of()).startsWith("cluster.members: "));
    }

    /** An agent alone and a sidecar on one host collide on no port they did not set (HTTP, UCX, cluster). */
    @Test
    void eachRoleHasItsOwnDefaultHttpPort() throws Exception {
        RdmaConfig agent = parse("roles: [agent]\nagent: {volumeDirs: [/data]}");
        RdmaConfig sidecar = parse("roles: [sidecar]");
        RdmaConfig both = parse("roles: [agent, sidecar]\nagent: {volumeDirs: [/data]}");
        assertEquals(8515, agent.http().port());
        assertEquals(8081, sidecar.http().port());
        assertEquals(8081, both.http().port(), "the sidecar's port is a contract wherever it runs");
        Set<Integer> agentPorts = Set.of(agent.http().port(), agent.agent().listen().port());
        assertFalse(agentPorts.contains(sidecar.http().port()));
        assertEquals(2, agentPorts.size());
        // SeaweedFS's defaults: volume 8080, master 9333, filer 8888, S3 8333, their gRPC ports (+10000).
        for (int seaweed : List.of(8080, 9333, 8888, 8333, 18080, 19333, 18888, 18333)) {
            assertFalse(agentPorts.contains(seaweed), "agent port " + seaweed + " is SeaweedFS's");
        }
        // Set explicitly (file or environment) it is the one given, whatever the roles; empty restores the default.
        assertEquals(8516, parse("roles: [agent]\nagent: {volumeDirs: [/data]}\nhttp: {port: 8516}").http().port());
        assertEquals(8515, ConfigLoader.parse("roles: [agent]\nagent: {volumeDirs: [/data]}\nhttp: {port: 9}", "t",
                Map.of("SEAWEEDFS_RDMA_HTTP_PORT", "")).http().port());
        // The documented file, with only its roles changed, takes the role's default.
        String documented = Files.readString(Path.of("conf/config.yaml"));
        assertEquals(8515, ConfigLoader.parse(documented, "conf/config.yaml", Map.of("SEAWEEDFS_RDMA_ROLES", "agent",
                "SEAWEEDFS_RDMA_AGENT_VOLUME_DIRS", "/data")).http().port());
    }

    @Test
    void documentedFileHoldsTheDefaultsAndNamesEveryKey() throws Exception {
        String text = Files.readString(Path.of("conf/config.yaml"));
        assertEquals(parse(""), parse(text));
        for (ConfigKey key : ConfigSchema.KEYS) {
            String leaf = key.name().substring(key.name().lastIndexOf('.') + 1);
            assertTrue(text.contains(leaf + ":"), key.name() + " is not documented in conf/config.yaml");
        }
    }

    @Test
    void demoFileRunsBothRoles() throws Exception {
        RdmaConfig c = parse(Files.readString(Path.of("conf/demo.yaml")));
        assertEquals(Set.of(Role.AGENT, Role.SIDECAR), c.roles());
        assertEquals(List.of("demo-volumes"), c.agent().volumeDirs());
        assertEquals("ucx", c.agent().volumeMemory(),
                "agent and sidecar share the host: copies read over shared memory");
    }

    @Test
    void nestedAndDottedKeysAndYamlTypes() {
        RdmaConfig c = parse("""
                roles: [agent, sidecar]
                http: {port: 9000, jwtReadKey: secret, transport: IO_URING}
                agent.volumeDirs: [/data/a, /data/b]
                agent: {offset5: true, listen: "[::1]:7000"}
                sidecar:
                  master: master:9333
                  bufferPool: {bufferSize: 64KiB, totalBytes: 1MB}
                  ping: {interval: 1m}
                  fallback: [http]
                  ecRebuild: fallback
                """);
        assertEquals(EcRebuild.FALLBACK, c.sidecar().ecRebuild());
        assertEquals(9000, c.http().port());
        assertEquals("secret", c.http().jwtReadKey());
        assertEquals(NetworkTransport.IO_URING, c.http().transport());
        assertEquals(List.of("/data/a", "/data/b"), c.agent().volumeDirs());
        assertEquals(new HostPort("::1", 7000), c.agent().listen());
        assertTrue(c.agent().offset5());
        assertEquals(new HostPort("master", 9333), c.sidecar().master());
        assertEquals(new SidecarConfig.BufferPool(65536, 1_000_000), c.sidecar().bufferPool());
        assertEquals(new SidecarConfig.Ping(Duration.ofMinutes(1)), c.sidecar().ping());
        assertEquals(Duration.ofSeconds(30), c.sidecar().ping().timeout());
        assertEquals(List.of(Fallback.HTTP), c.sidecar().fallback());
    }

    @Test
    void environmentOverridesTheFile() {
        RdmaConfig c = ConfigLoader.parse("http: {port: 9000}\nsidecar: {agents: [a:1]}", "test.yaml", Map.of(
                "SEAWEEDFS_RDMA_HTTP_PORT", "9100",
                "SEAWEEDFS_RDMA_SIDECAR_AGENTS", "h1:1, h2:2",
                "SEAWEEDFS_RDMA_SIDECAR_BUFFER_POOL_BUFFER_SIZE", "128KiB",
                "SEAWEEDFS_RDMA_SIDECAR_MAX_IN_FLIGHT_READS", "7",
                "SEAWEEDFS_RDMA_METRICS_ENABLED", "false",
                "SEAWEEDFS_RDMA_SIDECAR_FALLBACK", "",
                "SEAWEEDFS_RDMA_ROLES", "agent,sidecar",
                "SEAWEEDFS_RDMA_AGENT_VOLUME_DIRS", "/v",
                "PATH", "/usr/bin"));
        assertEquals(9100, c.http().port());
        assertEquals(List.of(new HostPort("h1", 1), new HostPort("h2", 2)), c.sidecar().agents());
        assertEquals(128 * 1024, c.sidecar().bufferPool().bufferSize());
        assertEquals(7, c.sidecar().maxInFlightReads());
        assertFalse(c.metrics().enabled());
        assertEquals(List.of(Fallback.READ_THROUGH, Fallback.HTTP), c.sidecar().fallback(), "empty restores default");
        assertEquals(Set.of(Role.AGENT, Role.SIDECAR), c.roles());
    }

    @Test
    void everyKeyHasItsVariable() {
        assertEquals("SEAWEEDFS_RDMA_HTTP_PORT", ConfigLoader.environmentVariable("http.port"));
        assertEquals("SEAWEEDFS_RDMA_SIDECAR_PING_INTERVAL", ConfigLoader.environmentVariable("sidecar.ping.interval"));
        assertEquals("SEAWEEDFS_RDMA_UCX_NET_DEVICES", ConfigLoader.environmentVariable("ucx.netDevices"));
        assertEquals(ConfigSchema.KEYS.size(), ConfigSchema.KEYS.stream().map(ConfigKey::envName).distinct().count());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "http: {prot: 1}                         | http.prot: unknown key (did you mean http.port?)",
            "htp: {port: 1}                          | htp: unknown key (did you mean http?)",
            "nonsense: 1                             | nonsense: unknown key",
            "http: 5                                 | http: expected a section of keys, got '5'",
            "http: {port: abc}                       | http.port: expected an integer, got 'abc'",
            "http: {port: 70000}                     | http.port: must be between 0 and 65535, got 70000",
            "http: {port: [1]}                       | http.port: expected an integer, got a list",
            "http: {port: {a: 1}}                    | http.port: expected an integer, got a section",
            "sidecar: {maxInFlightReads: 0}          | sidecar.maxInFlightReads: must be between 1 and 65536, got 0",
            "http: {headerTimeout: 0ms}              | http.headerTimeout: must be between 1ms and 3600000ms, got 0ms",
            "http: {idleTimeout: 2h}                 | http.idleTimeout: must be between 1ms and 3600000ms, got 2h",
            "http: {maxConnections: 0}               | http.maxConnections: must be between 1 and 1000000, got 0",
            "agent: {offset5: yes please}            | agent.offset5: expected true or false, got 'yes please'",
            "idlePollMicros: -1                      | idlePollMicros: must be between 0 and 10000, got -1",
            "agent: {listen: nohost}                 | agent.listen: 'nohost' is not host:port",
            "agent: {listen: 'h:99999'}              | agent.listen: 'h:99999': port 99999 is outside 0..65535",
            "sidecar: {agents: ['h:0']}              | sidecar.agents: 'h:0': port 0 is outside 1..65535",
            "agent: {listen: 'h:x1'}                 | agent.listen: 'h:x1': port 'x1' is not a number",
            "agent: {volumeMemory: shm}              | agent.volumeMemory: 'shm' is not one of mapped, ucx",
            "http: {transport: uring}                | http.transport: 'uring' is not one of auto, io_uring, epoll, "
                    + "nio",
            "agent: {volumeMemory: [ucx]}            | agent.volumeMemory: expected a string, got a list",
            "agent: {volumeMemoryLimit: -1GiB}       | agent.volumeMemoryLimit: expected a size like 65536, 64KiB or "
                    + "1MiB, got '-1GiB'",
            "agent: {volumeMemoryLimit: 70000GiB}    | agent.volumeMemoryLimit: must be between 0 and 70368744177664, "
                    + "got 70000GiB",
            "agent: {listen: '::1:80'}               | agent.listen: '::1:80': write IPv6 addresses as [address]:port",
            "sidecar: {agents: [a:1, b]}             | sidecar.agents: 'b' is not host:port",
            "sidecar: {volumeServers: [v:8080, w]}   | sidecar.volumeServers: 'w' is not host:port",
            "sidecar: {agents: [[a]]}                | sidecar.agents: expected a list of host:port, got an item that "
                    + "is not a scalar",
            "sidecar: {readTimeout: 5}               | sidecar.readTimeout: expected a duration like 500ms, 5s or 2m, "
                    + "got '5'",
            "sidecar: {readTimeout: 2h}              | sidecar.readTimeout: must be between 1ms and 3600000ms, got 2h",
            "sidecar: {maxNeedleBytes: 5TB}          | sidecar.maxNeedleBytes: expected a size like 65536, 64KiB or "
                    + "1MiB, got '5TB'",
            "sidecar: {maxNeedleBytes: 5GiB}         | sidecar.maxNeedleBytes: must be between 1 and 4294967296, got "
                    + "5GiB",
            "sidecar: {fallback: [http, smoke]}      | sidecar.fallback: 'smoke' is not one of read-through, http",
            "sidecar: {fallback: [http, http]}       | sidecar.fallback: lists a path twice",
            "sidecar: {ecRebuild: parity}            | sidecar.ecRebuild: 'parity' is not one of rdma, fallback",
            "ucx: {errorHandling: maybe}             | ucx.errorHandling: 'maybe' is not one of peer, none",
            "roles: [agent, proxy]                   | roles: 'proxy' is not one of agent, sidecar",
            "roles: []                               | roles: must name at least one of agent, sidecar",
            "roles: [agent]                          | agent.volumeDirs: the agent role needs at least one volume "
                    + "directory",
            "sidecar: {agents: []}                   | sidecar.agents: empty and sidecar.master is unset, so the "
                    + "sidecar cannot find any agent",
            "sidecar: {bufferPool: {bufferSize: 1MiB, totalBytes: 64KiB}} | sidecar.bufferPool.totalBytes: must be at "
                    + "least sidecar.bufferPool.bufferSize (1048576)",
            "sidecar: {ping: {interval: 5ms}}        | sidecar.ping.interval: must be between 10ms and 3600000ms, "
                    + "got 5ms",
    })
    void fileProblemNamesTheKey(String yaml, String expected) {
        String message = problem(yaml, Map.of());
        assertTrue(message.startsWith(expected), "got: " + message);
    }

    /** YAML keeps the last of two blocks silently: a sidecar meant for one address came up on the default. */
    @Test
    void aSectionGivenTwiceIsRefusedNamingBothLines() {
        assertEquals("http: given twice in test.yaml, on lines 2 and 5 (give it once)", problem("""
                roles: [sidecar]
                http:
                  host: 127.0.0.1
                  port: 18961
                http:
                  port: 8081
                """, Map.of()));
    }

    @Test
    void aKeyGivenTwiceIsRefusedNamingBothLinesWhateverTheSpelling() {
        assertEquals("http.port: given twice in test.yaml, on lines 2 and 3 (give it once)",
                problem("http:\n  port: 1\n  port: 2\n", Map.of()));
        assertEquals("http.port: given twice in test.yaml, on lines 1 and 2 (give it once)",
                problem("http.port: 1\nhttp: {port: 2}", Map.of()));
        assertEquals("sidecar.ping.interval: given twice in test.yaml, on lines 3 and 4 (give it once)",
                problem("sidecar:\n  ping:\n    interval: 1s\n    interval: 2s\n", Map.of()));
    }

    /** A renamed key is refused by its old name, with the new one, in the file and in the environment. */
    @Test
    void aRenamedKeyIsRefusedWithItsNewName() {
        assertEquals("agent.indexDir: this key was renamed agent.indexCacheDir; use that name",
                problem("agent: {indexDir: /var/rdx}", Map.of()));
        assertEquals("SEAWEEDFS_RDMA_AGENT_INDEX_DIR: this key was renamed SEAWEEDFS_RDMA_AGENT_INDEX_CACHE_DIR; use "
                + "that name", problem("", Map.of("SEAWEEDFS_RDMA_AGENT_INDEX_DIR", "/var/rdx")));
        assertEquals("/var/rdx", parse("agent: {indexCacheDir: /var/rdx}").agent().indexCacheDir());
    }

    @Test
    void wholeFileProblems() {
        assertEquals("test.yaml: expected a map of keys at the top level", problem("[1, 2]", Map.of()));
        assertTrue(problem("a: [unclosed", Map.of()).startsWith("test.yaml:1:13: not valid YAML: "),
                problem("a: [unclosed", Map.of()));
    }

    @Test
    void aYamlSyntaxErrorNamesItsLine() {
        String message = problem("http:\n  port: 8081\n  host: [127.0.0.1\nagent: {}\n", Map.of());
        assertTrue(message.startsWith("test.yaml:4:"), message);
        assertTrue(message.contains("not valid YAML"), message);
    }

    @Test
    void environmentProblemsNameTheVariable() {
        assertEquals("http.port (from SEAWEEDFS_RDMA_HTTP_PORT): expected an integer, got 'eighty'",
                problem("", Map.of("SEAWEEDFS_RDMA_HTTP_PORT", "eighty")));
        assertEquals("SEAWEEDFS_RDMA_HTTP_PROT: unknown key (did you mean SEAWEEDFS_RDMA_HTTP_PORT?)",
                problem("", Map.of("SEAWEEDFS_RDMA_HTTP_PROT", "1")));
        assertEquals("agent.volumeMemory (from SEAWEEDFS_RDMA_AGENT_VOLUME_MEMORY): 'copy' is not one of mapped, ucx",
                problem("", Map.of("SEAWEEDFS_RDMA_AGENT_VOLUME_MEMORY", "copy")));
    }

    @Test
    void httpInstancesZeroIsHalfTheCoresAndAnExplicitCountIsKept() {
        assertEquals(1, HttpConfig.autoInstances(1));
        assertEquals(1, HttpConfig.autoInstances(2));
        assertEquals(1, HttpConfig.autoInstances(3));
        assertEquals(8, HttpConfig.autoInstances(16));
        assertEquals(HttpConfig.autoInstances(Runtime.getRuntime().availableProcessors()),
                parse("http: {instances: 0}").http().instances());
        assertEquals(3, parse("http: {instances: 3}").http().instances());
        assertEquals("http.instances: must be between 0 and 256, got -1", problem("http: {instances: -1}", Map.of()));
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> parse("http: {port: -1, instances: -1}\nbogus: 1"));
        assertEquals(3, e.problems().size(), e.getMessage());
        assertTrue(e.getMessage().startsWith("invalid configuration:\n  "));
    }

    @Test
    void loadsAFileAsynchronously(Vertx vertx, VertxTestContext ctx) throws Exception {
        Path file = Files.createTempFile("rdma", ".yaml");
        Files.writeString(file, "http: {port: 9001}\n");
        ConfigLoader.load(vertx, file.toString()).onComplete(ctx.succeeding(c -> ctx.verify(() -> {
            assertEquals(9001, c.http().port());
            Files.delete(file);
            ctx.completeNow();
        })));
    }

    @Test
    void missingFileIsAConfigProblem(Vertx vertx, VertxTestContext ctx) {
        ConfigLoader.load(vertx, "/nonexistent/rdma.yaml").onComplete(ctx.failing(e -> ctx.verify(() -> {
            assertTrue(e instanceof ConfigException);
            assertTrue(e.getMessage().contains("--conf /nonexistent/rdma.yaml: cannot read the file"), e.getMessage());
            ctx.completeNow();
        })));
    }
}
