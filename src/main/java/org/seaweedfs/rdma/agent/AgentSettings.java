package org.seaweedfs.rdma.agent;

import org.seaweedfs.rdma.protocol.ControlCodec;
import org.seaweedfs.rdma.protocol.ProtocolLimits;
import org.seaweedfs.rdma.volume.ec.EcLayout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How an {@link AgentVerticle} serves the volumes of one volume server ({@code agent.*} configuration keys).
 *
 * @param host          address the control listener binds ({@code agent.host})
 * @param port          its port, 0 = any free port ({@code agent.port})
 * @param volumeDirs    the volume server's data directories ({@code agent.volumeDirs}), at least one
 * @param offset5       the {@code .idx} files use 17-byte entries (5-byte offsets, {@code agent.offset5})
 * @param authToken     shared secret a sidecar's Hello must carry; null = no authentication ({@code agent.authToken})
 * @param agentId       this agent's name in HelloOk and logs ({@code agent.agentId}); a per-start suffix is added on
 *                      the wire so that a restart is visible to sidecars
 * @param pollInterval  how often the volume files are checked for growth, deletions, new volumes and compaction
 *                      (default 250 ms so changes are served well within 1 s; set in code only)
 * @param segmentBytes  size of one mapped and registered piece of a {@code .dat} (default 1 GiB,
 *                      set in code only; a multiple of 4096, below 2 GiB because Java 17 maps at most 2 GiB at a time)
 * @param retireGrace   how long a replaced mapping stays registered, so reads that started before can finish
 *                      (default 10 s, set in code only)
 * @param maxFrameBytes largest control frame sent or accepted ({@code agent.maxFrameBytes}, default 4 MiB; the
 *                      sidecars must use the same value)
 * @param maxRepliesInFlight large replies (volume lists, sync frames, read-through data) one channel may have
 *                      queued for sending at once (default 32, set in code only: with 4 MiB frames at
 *                      most 128 MiB per sidecar); further such requests are answered OVERLOADED (retriable) at once,
 *                      so a sidecar that floods the agent cannot make it buffer without bound
 * @param volumeMemory  where served {@code .dat} bytes live ({@code agent.volumeMemory}, default
 *                      {@link VolumeMemory#MAPPED}); {@link VolumeMemory#UCX} serves copies that same-host sidecars
 *                      read over shared memory without the agent's CPU
 * @param volumeMemoryLimit the most bytes of UCX memory held for volume copies ({@code agent.volumeMemoryLimit},
 *                      default 4 GiB); volumes beyond it are served mapped
 * @param ecLargeBlock  the large block of the EC layout the agent assumes ({@link EcLayout#LARGE_BLOCK}, as SeaweedFS
 *                      writes); not a configuration key: only tests, whose EC volumes use small blocks, change it
 * @param ecSmallBlock  the small block of the EC layout ({@link EcLayout#SMALL_BLOCK}); likewise
 * @param indexCacheDir where the index files the agent derives go ({@code agent.indexCacheDir}); null: beside each
 *                      volume, or, where its directory is not writable, in
 *                      {@code <java.io.tmpdir>/seaweedfs-rdma-index}
 * @param volumeIdxDir  the volume server's separate index directory ({@code weed volume -dir.idx},
 *                      {@code agent.volumeIdxDir}): where it keeps {@code .idx}, {@code .ecx} and {@code .ecj} files
 *                      beside none of the data directories; null: the volume server has none
 */
public record AgentSettings(String host, int port, List<Path> volumeDirs, boolean offset5, String authToken,
                            String agentId, Duration pollInterval, long segmentBytes, Duration retireGrace,
                            int maxFrameBytes, int maxRepliesInFlight, VolumeMemory volumeMemory,
                            long volumeMemoryLimit, long ecLargeBlock, long ecSmallBlock, Path indexCacheDir,
                            Path volumeIdxDir) {

    public static final int DEFAULT_MAX_REPLIES_IN_FLIGHT = 32;
    public static final long DEFAULT_VOLUME_MEMORY_LIMIT = 4L << 30;

    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(250);
    public static final long DEFAULT_SEGMENT_BYTES = 1L << 30;
    public static final Duration DEFAULT_RETIRE_GRACE = Duration.ofSeconds(10);
    /** Segments are whole pages so every registration starts on a page boundary. */
    public static final long SEGMENT_ALIGNMENT = 4096;
    /** The largest page multiple one Java 17 mapping can hold. */
    public static final long MAX_SEGMENT_BYTES = (Integer.MAX_VALUE / SEGMENT_ALIGNMENT) * SEGMENT_ALIGNMENT;
    private static final Duration MAX_POLL_INTERVAL = Duration.ofSeconds(60);
    private static final Duration MAX_RETIRE_GRACE = Duration.ofHours(1);

    public AgentSettings {
        require(host != null && !host.isBlank(), "agent.host must not be empty");
        host = host.strip();
        require(port >= 0 && port <= 65535, "agent.port must be 0..65535, got " + port);
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
        require(agentId != null && !agentId.isBlank(), "agent.agentId must not be empty");
        // The wire id is agentId + '/' + a 16-character start suffix, within HelloOk.agentId's bound.
        require(agentId.getBytes(StandardCharsets.UTF_8).length <= ProtocolLimits.MAX_ID_BYTES - 17,
                "agent.agentId must be at most " + (ProtocolLimits.MAX_ID_BYTES - 17) + " bytes in UTF-8");
        Objects.requireNonNull(pollInterval, "agent.pollInterval");
        require(!pollInterval.isNegative() && pollInterval.toMillis() >= 1 && pollInterval.compareTo(MAX_POLL_INTERVAL)
                <= 0,
                "agent.pollInterval must be between 1 ms and " + MAX_POLL_INTERVAL.toSeconds() + " s, got "
                        + pollInterval);
        require(segmentBytes >= SEGMENT_ALIGNMENT && segmentBytes <= MAX_SEGMENT_BYTES
                && segmentBytes % SEGMENT_ALIGNMENT == 0,
                "agent.segmentBytes must be a multiple of " + SEGMENT_ALIGNMENT + " between " + SEGMENT_ALIGNMENT
                        + " and " + MAX_SEGMENT_BYTES + " (Java maps below 2 GiB at a time), got " + segmentBytes);
        Objects.requireNonNull(retireGrace, "agent.retireGrace");
        require(!retireGrace.isNegative() && retireGrace.compareTo(MAX_RETIRE_GRACE) <= 0,
                "agent.retireGrace must be between 0 and 1 h, got " + retireGrace);
        require(maxFrameBytes >= ControlCodec.MIN_MAX_FRAME_BYTES && maxFrameBytes <= ControlCodec.MAX_MAX_FRAME_BYTES,
                "agent.maxFrameBytes must be between " + ControlCodec.MIN_MAX_FRAME_BYTES + " and "
                        + ControlCodec.MAX_MAX_FRAME_BYTES + ", got " + maxFrameBytes);
        require(maxRepliesInFlight >= 1 && maxRepliesInFlight <= 65_536,
                "agent.maxRepliesInFlight must be between 1 and 65536, got " + maxRepliesInFlight);
        Objects.requireNonNull(volumeMemory, "agent.volumeMemory");
        require(ecSmallBlock > 0 && ecLargeBlock >= ecSmallBlock, "EC block sizes must satisfy 0 < small <= large, got "
                + ecLargeBlock + " and " + ecSmallBlock);
        require(volumeMemoryLimit >= 0, "agent.volumeMemoryLimit must not be negative, got " + volumeMemoryLimit);
    }

    /** Defaults for everything but where to listen and what to serve: no token, 4-byte offsets. */
    public static AgentSettings of(String host, int port, List<Path> volumeDirs) {
        return new AgentSettings(host, port, volumeDirs, false, null, "agent-" + host + "-" + port,
                DEFAULT_POLL_INTERVAL, DEFAULT_SEGMENT_BYTES, DEFAULT_RETIRE_GRACE,
                        ControlCodec.DEFAULT_MAX_FRAME_BYTES,
                DEFAULT_MAX_REPLIES_IN_FLIGHT);
    }

    /** Everything but the volume memory, which is left at its default (mapped). */
    public AgentSettings(String host, int port, List<Path> volumeDirs, boolean offset5, String authToken,
                         String agentId, Duration pollInterval, long segmentBytes, Duration retireGrace,
                         int maxFrameBytes, int maxRepliesInFlight) {
        this(host, port, volumeDirs, offset5, authToken, agentId, pollInterval, segmentBytes, retireGrace,
                maxFrameBytes, maxRepliesInFlight, VolumeMemory.MAPPED, DEFAULT_VOLUME_MEMORY_LIMIT);
    }

    /** Everything but the EC block sizes, which are SeaweedFS's. */
    public AgentSettings(String host, int port, List<Path> volumeDirs, boolean offset5, String authToken,
                         String agentId, Duration pollInterval, long segmentBytes, Duration retireGrace,
                         int maxFrameBytes, int maxRepliesInFlight, VolumeMemory volumeMemory, long volumeMemoryLimit) {
        this(host, port, volumeDirs, offset5, authToken, agentId, pollInterval, segmentBytes, retireGrace,
                maxFrameBytes, maxRepliesInFlight, volumeMemory, volumeMemoryLimit, EcLayout.LARGE_BLOCK,
                        EcLayout.SMALL_BLOCK,
                null, null);
    }

    /** EC volumes laid out with other block sizes than SeaweedFS's (tests). */
    public AgentSettings withEcBlockSizes(long large, long small) {
        return new AgentSettings(host, port, volumeDirs, offset5, authToken, agentId, pollInterval, segmentBytes,
                retireGrace, maxFrameBytes, maxRepliesInFlight, volumeMemory, volumeMemoryLimit, large, small,
                        indexCacheDir,
                volumeIdxDir);
    }

    public AgentSettings withAuthToken(String token) {
        return new AgentSettings(host, port, volumeDirs, offset5, token, agentId, pollInterval, segmentBytes,
                retireGrace, maxFrameBytes, maxRepliesInFlight, volumeMemory, volumeMemoryLimit, ecLargeBlock,
                ecSmallBlock, indexCacheDir,
                volumeIdxDir);
    }

    public AgentSettings withOffset5(boolean five) {
        return new AgentSettings(host, port, volumeDirs, five, authToken, agentId, pollInterval, segmentBytes,
                retireGrace, maxFrameBytes, maxRepliesInFlight, volumeMemory, volumeMemoryLimit, ecLargeBlock,
                ecSmallBlock, indexCacheDir,
                volumeIdxDir);
    }

    public AgentSettings withAgentId(String id) {
        return new AgentSettings(host, port, volumeDirs, offset5, authToken, id, pollInterval, segmentBytes,
                retireGrace, maxFrameBytes, maxRepliesInFlight, volumeMemory, volumeMemoryLimit, ecLargeBlock,
                ecSmallBlock, indexCacheDir,
                volumeIdxDir);
    }

    public AgentSettings withPollInterval(Duration interval) {
        return new AgentSettings(host, port, volumeDirs, offset5, authToken, agentId, interval, segmentBytes,
                retireGrace, maxFrameBytes, maxRepliesInFlight, volumeMemory, volumeMemoryLimit, ecLargeBlock,
                ecSmallBlock, indexCacheDir,
                volumeIdxDir);
    }

    public AgentSettings withSegmentBytes(long bytes) {
        return new AgentSettings(host, port, volumeDirs, offset5, authToken, agentId, pollInterval, bytes,
                retireGrace, maxFrameBytes, maxRepliesInFlight, volumeMemory, volumeMemoryLimit, ecLargeBlock,
                ecSmallBlock, indexCacheDir,
                volumeIdxDir);
    }

    public AgentSettings withRetireGrace(Duration grace) {
        return new AgentSettings(host, port, volumeDirs, offset5, authToken, agentId, pollInterval, segmentBytes,
                grace, maxFrameBytes, maxRepliesInFlight, volumeMemory, volumeMemoryLimit, ecLargeBlock,
                ecSmallBlock, indexCacheDir,
                volumeIdxDir);
    }

    public AgentSettings withMaxFrameBytes(int bytes) {
        return new AgentSettings(host, port, volumeDirs, offset5, authToken, agentId, pollInterval, segmentBytes,
                retireGrace, bytes, maxRepliesInFlight, volumeMemory, volumeMemoryLimit, ecLargeBlock,
                ecSmallBlock, indexCacheDir,
                volumeIdxDir);
    }

    public AgentSettings withMaxRepliesInFlight(int replies) {
        return new AgentSettings(host, port, volumeDirs, offset5, authToken, agentId, pollInterval, segmentBytes,
                retireGrace, maxFrameBytes, replies, volumeMemory, volumeMemoryLimit, ecLargeBlock,
                ecSmallBlock, indexCacheDir,
                volumeIdxDir);
    }

    /**
     * {@code agent.volumeMemory} and {@code agent.volumeMemoryLimit} together: the limit only means something for UCX.
     */
    public AgentSettings withVolumeMemory(VolumeMemory memory, long limit) {
        return new AgentSettings(host, port, volumeDirs, offset5, authToken, agentId, pollInterval, segmentBytes,
                retireGrace, maxFrameBytes, maxRepliesInFlight, memory, limit, ecLargeBlock, ecSmallBlock,
                indexCacheDir,
                volumeIdxDir);
    }

    public AgentSettings withIndexCacheDir(Path dir) {
        return new AgentSettings(host, port, volumeDirs, offset5, authToken, agentId, pollInterval, segmentBytes,
                retireGrace, maxFrameBytes, maxRepliesInFlight, volumeMemory, volumeMemoryLimit, ecLargeBlock,
                ecSmallBlock, dir, volumeIdxDir);
    }

    public AgentSettings withVolumeIdxDir(Path dir) {
        return new AgentSettings(host, port, volumeDirs, offset5, authToken, agentId, pollInterval, segmentBytes,
                retireGrace, maxFrameBytes, maxRepliesInFlight, volumeMemory, volumeMemoryLimit, ecLargeBlock,
                ecSmallBlock, indexCacheDir, dir);
    }

    /** Every directory the volume server keeps volume files in: the data directories, then the index one if set. */
    public List<Path> volumeFileDirs() {
        if (volumeIdxDir == null || volumeDirs.contains(volumeIdxDir)) {
            return volumeDirs;
        }
        List<Path> all = new java.util.ArrayList<>(volumeDirs);
        all.add(volumeIdxDir);
        return List.copyOf(all);
    }

    /** Never prints the token. */
    @Override
    public String toString() {
        return "AgentSettings[host=" + host + ", port=" + port + ", volumeDirs=" + volumeDirs + ", offset5=" + offset5
                + ", authToken=" + (authToken == null ? "none" : "***") + ", agentId=" + agentId
                + ", pollInterval=" + pollInterval.toMillis() + " ms, segmentBytes=" + segmentBytes
                + ", retireGrace=" + retireGrace.toMillis() + " ms, maxFrameBytes=" + maxFrameBytes
                + ", maxRepliesInFlight=" + maxRepliesInFlight + ", volumeMemory=" + volumeMemory.configName()
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
