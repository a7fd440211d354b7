package org.seaweedfs.rdma;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.agent.VolumeMemory;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;

class RoleSettingsTest {

    private static RdmaConfig parse(String yaml) {
        return ConfigLoader.parse(yaml, "test.yaml", Map.of());
    }

    @Test
    void agentKeysReachTheAgentSettings() throws Exception {
        var settings = RoleSettings.agent(parse("""
                roles: [agent]
                agent: {volumeDirs: [/v], offset5: true, authToken: t}
                """).agent());
        assertTrue(settings.offset5());
        assertEquals("t", settings.authToken());
        assertEquals("agent-0.0.0.0-18515", settings.agentId());
        assertNull(settings.volumeIdxDir());
        assertEquals(List.of(Path.of("/v")), settings.volumeFileDirs());
    }

    @Test
    void theVolumeServersIndexDirectoryIsAnotherPlaceForVolumeFilesNotTheAgentsIndexCache() {
        var settings = RoleSettings.agent(parse("""
                roles: [agent]
                agent: {volumeDirs: [/hdd1, /hdd2], volumeIdxDir: /ssd/idx, indexCacheDir: /var/rdx}
                """).agent());
        assertEquals(Path.of("/ssd/idx"), settings.volumeIdxDir());
        assertEquals(Path.of("/var/rdx"), settings.indexCacheDir());
        assertEquals(List.of(Path.of("/hdd1"), Path.of("/hdd2")), settings.volumeDirs());
        assertEquals(List.of(Path.of("/hdd1"), Path.of("/hdd2"), Path.of("/ssd/idx")), settings.volumeFileDirs());
    }

    @Test
    void volumeMemoryKeysReachTheAgentSettings() {
        var settings = RoleSettings.agent(parse("""
                roles: [agent]
                agent: {volumeDirs: [/v], volumeMemory: ucx, volumeMemoryLimit: 512MiB}
                """).agent());
        assertEquals(VolumeMemory.UCX, settings.volumeMemory());
        assertEquals(512L << 20, settings.volumeMemoryLimit());
        var fromEnvironment = RoleSettings.agent(ConfigLoader.fromEnvironment(Map.of(
                "SEAWEEDFS_RDMA_ROLES", "agent",
                "SEAWEEDFS_RDMA_AGENT_VOLUME_DIRS", "/v",
                "SEAWEEDFS_RDMA_AGENT_VOLUME_MEMORY", "UCX",
                "SEAWEEDFS_RDMA_AGENT_VOLUME_MEMORY_LIMIT", "0")).agent());
        assertEquals(VolumeMemory.UCX, fromEnvironment.volumeMemory());
        assertEquals(0, fromEnvironment.volumeMemoryLimit(), "0: nothing fits, every volume is served mapped");
        assertEquals(VolumeMemory.MAPPED,
                RoleSettings.agent(parse("agent: {volumeDirs: [/v]}").agent()).volumeMemory());
    }

    @Test
    void onDemandPagingFollowsTheTransportsUnlessSetAndTheKeyBoundIsPassedOn() throws Exception {
        assertTrue(RoleSettings.ucx(parse("")).onDemandPaging(), "empty tls lets UCX pick RDMA");
        assertEquals("all", RoleSettings.ucx(parse("")).contextConfig().get("TLS"),
                "empty tls is UCX's own default, RDMA transports included");
        assertEquals("rc,sm,self",
                RoleSettings.ucx(parse("ucx: {tls: [rc, sm, self]}")).contextConfig().get("TLS"));
        assertFalse(RoleSettings.ucx(parse("ucx: {tls: [tcp, sm, self]}")).onDemandPaging());
        assertTrue(RoleSettings.ucx(parse("ucx: {tls: [rc, sm, self]}")).onDemandPaging());
        assertTrue(RoleSettings.ucx(parse("ucx: {tls: [tcp], onDemandPaging: 'true'}")).onDemandPaging());
        assertFalse(RoleSettings.ucx(parse("ucx: {tls: [rc], onDemandPaging: false}")).onDemandPaging());
        assertEquals(0, RoleSettings.ucx(parse("idlePollMicros: 0")).idlePollMicros());
        assertEquals(100, RoleSettings.ucx(parse("idlePollMicros: 100")).idlePollMicros());
    }
}
