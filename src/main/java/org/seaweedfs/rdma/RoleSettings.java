package org.seaweedfs.rdma;

import java.nio.file.Path;
import java.util.Locale;
import org.seaweedfs.rdma.agent.AgentSettings;
import org.seaweedfs.rdma.agent.VolumeMemory;
import org.seaweedfs.rdma.config.AgentConfig;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.config.UcxConfig;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.ucx.UcxSettings;

/**
 * Turns the validated configuration into the settings each component takes. It lives in the composition root so
 * that {@code config} knows no component (no package cycle).
 */
public final class RoleSettings {

    private RoleSettings() {
    }

    /** The {@code ucx.*} keys and {@code idlePollMicros}, for a role's UCX worker. */
    public static UcxSettings ucx(RdmaConfig config) {
        UcxConfig ucx = config.ucx();
        // empty means "UCX chooses" (conf/config.yaml): UCX's own default, all, so RDMA is used where a host has it;
        // UcxSettings' sm,tcp,self default would leave an InfiniBand host on TCP
        String tls = ucx.tls().isEmpty() ? "all" : String.join(",", ucx.tls());
        // "auto": on when the TLS list could select RDMA (all, when the list is empty)
        boolean onDemand = switch (ucx.onDemandPaging()) {
            case "true" -> true;
            case "false" -> false;
            default -> UcxSettings.mayUseRdma(tls);
        };
        return new UcxSettings(tls, ucx.netDevices().isEmpty() ? "all" : String.join(",", ucx.netDevices()),
                !"none".equals(ucx.errorHandling()), onDemand, config.idlePollMicros());
    }

    /** The {@code agent.*} keys. */
    public static AgentSettings agent(AgentConfig agent) {
        return new AgentSettings(agent.listen().host(), agent.listen().port(),
                agent.volumeDirs().stream().map(Path::of).toList(), agent.offset5(), agent.authToken(),
                VolumeMemory.valueOf(agent.volumeMemory().toUpperCase(Locale.ROOT)), agent.volumeMemoryLimit(),
                agent.indexCacheDir() == null ? null : Path.of(agent.indexCacheDir()),
                agent.volumeIdxDir() == null ? null : Path.of(agent.volumeIdxDir()));
    }

    /**
     * {@code sidecar.bufferPool}: large buffers of {@code bufferSize} for big needles and their chunks, and as many
     * 64 KiB buffers for typical needles, each class getting half of {@code totalBytes}.
     */
    public static RegisteredBufferPool.Settings bufferPool(SidecarConfig.BufferPool pool) {
        int small = Math.min(64 << 10, pool.bufferSize());
        long half = pool.totalBytes() / 2;
        int large = (int) Math.max(1, half / pool.bufferSize());
        return new RegisteredBufferPool.Settings(small, (int) Math.max(1, half / small), pool.bufferSize(), large);
    }
}
