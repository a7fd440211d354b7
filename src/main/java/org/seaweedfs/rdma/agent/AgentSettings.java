package org.seaweedfs.rdma.agent;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.seaweedfs.rdma.protocol.ProtocolLimits;

/**
 * How an {@link AgentVerticle} serves the volumes of one volume server: the {@code agent.*} configuration keys, typed.
 * Built from the configuration ({@code RoleSettings.agent}); what the agent fixes itself are constants where they
 * apply ({@link AgentVerticle}, {@link DatSegments#SEGMENT_BYTES}, {@link ControlServer#MAX_REPLIES_IN_FLIGHT}).
 *
 * @param host          address the control listener binds ({@code agent.listen})
 * @param port          its port, 0 = any free port ({@code agent.listen})
 * @param volumeDirs    the volume server's data directories ({@code agent.volumeDirs}), at least one
 * @param offset5       the {@code .idx} files use 17-byte entries (5-byte offsets, {@code agent.offset5})
 * @param authToken     shared secret a sidecar's Hello must carry; null = no authentication ({@code agent.authToken})
 * @param volumeMemory  where served {@code .dat} bytes live ({@code agent.volumeMemory}); {@link VolumeMemory#UCX}
 *                      serves copies that same-host sidecars read over shared memory without the agent's CPU
 * @param volumeMemoryLimit the most bytes of UCX memory held for volume copies ({@code agent.volumeMemoryLimit});
 *                      volumes beyond it are served mapped
 * @param indexCacheDir where the index files the agent derives go ({@code agent.indexCacheDir}); null: beside each
 *                      volume, or, where its directory is not writable, in
 *                      {@code <java.io.tmpdir>/seaweedfs-rdma-index}
 * @param volumeIdxDir  the volume server's separate index directory ({@code weed volume -dir.idx},
 *                      {@code agent.volumeIdxDir}): where it keeps {@code .idx}, {@code .ecx} and {@code .ecj} files
 *                      beside none of the data directories; null: the volume server has none
 */
public record AgentSettings(String host, int port, List<Path> volumeDirs, boolean offset5, String authToken,
                            VolumeMemory volumeMemory, long volumeMemoryLimit, Path indexCacheDir,
                            Path volumeIdxDir) {

    public AgentSettings {
        require(host != null && !host.isBlank(), "agent.listen: the host must not be empty");
        host = host.strip();
        require(port >= 0 && port <= 65535, "agent.listen: the port must be 0..65535, got " + port);
        require(volumeDirs != null && !volumeDirs.isEmpty(), "agent.volumeDirs must list at least one directory");
        for (int i = 0; i < volumeDirs.size(); i++) {
            require(volumeDirs.get(i) != null, "agent.volumeDirs[" + i + "] must not be null");
        }
        volumeDirs = List.copyOf(volumeDirs);
        require(volumeDirs.stream().distinct().count() == volumeDirs.size(),
                "agent.volumeDirs lists a directory twice: " + volumeDirs);
        if (authToken != null) {
            require(!authToken.isEmpty(),
                    "agent.authToken must not be empty when set (leave it out to disable authentication)");
            require(authToken.getBytes(StandardCharsets.UTF_8).length <= ProtocolLimits.MAX_TOKEN_BYTES,
                    "agent.authToken must be at most " + ProtocolLimits.MAX_TOKEN_BYTES + " bytes in UTF-8");
        }
        // The wire id is agentId + '/' + a 16-character start suffix, within HelloOk.agentId's bound.
        require(agentId(host, port).getBytes(StandardCharsets.UTF_8).length <= ProtocolLimits.MAX_ID_BYTES - 17,
                "agent.listen: the host must be at most " + (ProtocolLimits.MAX_ID_BYTES - 30) + " bytes in UTF-8");
        Objects.requireNonNull(volumeMemory, "agent.volumeMemory");
        require(volumeMemoryLimit >= 0, "agent.volumeMemoryLimit must not be negative, got " + volumeMemoryLimit);
    }

    /** This agent's name in HelloOk and logs; a per-start suffix is added on the wire so a restart is visible. */
    public String agentId() {
        return agentId(host, port);
    }

    private static String agentId(String host, int port) {
        return "agent-" + host + "-" + port;
    }

    /** Every directory the volume server keeps volume files in: the data directories, then the index one if set. */
    public List<Path> volumeFileDirs() {
        if (volumeIdxDir == null || volumeDirs.contains(volumeIdxDir)) {
            return volumeDirs;
        }
        List<Path> all = new ArrayList<>(volumeDirs);
        all.add(volumeIdxDir);
        return List.copyOf(all);
    }

    /** Never prints the token. */
    @Override
    public String toString() {
        return "AgentSettings[host=" + host + ", port=" + port + ", volumeDirs=" + volumeDirs + ", offset5=" + offset5
                + ", authToken=" + (authToken == null ? "none" : "***") + ", volumeMemory=" + volumeMemory.configName()
                + ", volumeMemoryLimit=" + volumeMemoryLimit
                + ", indexCacheDir=" + (indexCacheDir == null ? "beside" : indexCacheDir)
                + ", volumeIdxDir=" + (volumeIdxDir == null ? "none" : volumeIdxDir) + "]";
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
