package org.seaweedfs.rdma.testing;

import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.seaweedfs.rdma.RoleSettings;
import org.seaweedfs.rdma.agent.AgentSettings;
import org.seaweedfs.rdma.agent.AgentVerticle;
import org.seaweedfs.rdma.agent.TestAgents;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;

/**
 * A test agent's setup: the lines of its {@code agent:} section, as an operator writes them (built into settings by
 * the configuration loader, as {@code serve} does), and the pieces it cuts volumes into: the product's, except where
 * a test cannot reach a bound with them in reasonable time ({@link TestAgents}).
 *
 * @param agentYaml     lines of the {@code agent:} section (e.g. {@code "offset5: true"}); {@code listen} defaults to
 *                      {@code 127.0.0.1:0} and {@code volumeDirs} to the harness's directory when not given
 * @param segmentBytes  the size of the segments volumes are served in: {@link TestAgents#SEGMENT_BYTES}, or
 *                      {@link TestAgents#SMALL_SEGMENT_BYTES} for copies or EC shards of several segments
 * @param smallEcBlocks EC volumes are read with the blocks of {@link EcTestVolumes}, not SeaweedFS's
 */
public record AgentSetup(String agentYaml, long segmentBytes, boolean smallEcBlocks) {

    /** What {@code serve} runs with an empty {@code agent:} section. */
    public static final AgentSetup DEFAULTS = config("");

    /** The given {@code agent:} lines. */
    public static AgentSetup config(String agentYaml) {
        return new AgentSetup(agentYaml, TestAgents.SEGMENT_BYTES, false);
    }

    /**
     * Default configuration, for the tests' EC volumes ({@link EcTestVolumes}): their blocks are small, and so are the
     * segments, so a shard has several.
     */
    public static AgentSetup ecVolumes() {
        return new AgentSetup("", TestAgents.SMALL_SEGMENT_BYTES, true);
    }

    /** The same setup serving volumes in segments of {@code bytes}. */
    public AgentSetup inSegmentsOf(long bytes) {
        return new AgentSetup(agentYaml, bytes, smallEcBlocks);
    }

    /** The same setup with more {@code agent:} lines. */
    public AgentSetup and(String moreYaml) {
        return new AgentSetup(agentYaml.isBlank() ? moreYaml : agentYaml + "\n" + moreYaml, segmentBytes,
                smallEcBlocks);
    }

    /** The agent this setup describes, serving {@code dir} unless its lines name other dirs. */
    public AgentVerticle agent(UcxWorkerVerticle ucx, Path dir) {
        return segmentBytes == TestAgents.SEGMENT_BYTES && !smallEcBlocks ? new AgentVerticle(ucx, settings(dir))
                : TestAgents.create(ucx, settings(dir), segmentBytes, smallEcBlocks);
    }

    /** The settings {@code serve} would build from this section, serving {@code dir} unless it names other dirs. */
    public AgentSettings settings(Path dir) {
        StringBuilder section = new StringBuilder();
        if (!agentYaml.contains("listen:")) {
            section.append("listen: '127.0.0.1:0'\n");
        }
        if (!agentYaml.contains("volumeDirs:")) {
            section.append("volumeDirs: ['").append(dir).append("']\n");
        }
        section.append(agentYaml);
        String yaml = "roles: [agent]\nagent:\n" + section.toString().lines().map(l -> "  " + l)
                .collect(Collectors.joining("\n")) + "\n";
        return RoleSettings.agent(ConfigLoader.parse(yaml, "test agent", Map.of()).agent());
    }
}
