package org.seaweedfs.rdma.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.seaweedfs.rdma.RoleSettings;
import org.seaweedfs.rdma.agent.AgentLimits;
import org.seaweedfs.rdma.agent.AgentSettings;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;

/**
 * A test agent's setup: the lines of its {@code agent:} section, as an operator writes them (built into settings by
 * the configuration loader, as {@code serve} does), and the limits it runs with.
 *
 * @param agentYaml lines of the {@code agent:} section (e.g. {@code "offset5: true"}); {@code listen} defaults to
 *                  {@code 127.0.0.1:0} and {@code volumeDirs} to the harness's directory when not given
 * @param limits    the agent's limits
 */
public record AgentSetup(String agentYaml, AgentLimits limits) {

    /** Polls often and retires mappings soon, so the tests see changes quickly; otherwise the product's. */
    public static final AgentLimits QUICK = new AgentLimits(Duration.ofMillis(50), AgentLimits.FIXED.segmentBytes(),
            Duration.ofSeconds(1), AgentLimits.FIXED.maxFrameBytes(), AgentLimits.FIXED.maxRepliesInFlight(),
            AgentLimits.FIXED.ecLargeBlock(), AgentLimits.FIXED.ecSmallBlock());

    public static final AgentSetup DEFAULTS = new AgentSetup("", QUICK);

    /** The given {@code agent:} lines, {@link #QUICK} limits. */
    public static AgentSetup config(String agentYaml) {
        return new AgentSetup(agentYaml, QUICK);
    }

    /** Default configuration, these limits. */
    public static AgentSetup limits(AgentLimits limits) {
        return new AgentSetup("", limits);
    }

    /** {@link #QUICK}, with {@code .dat} files mapped in pieces of {@code segmentBytes}. */
    public static AgentLimits segments(long segmentBytes) {
        return new AgentLimits(QUICK.pollInterval(), segmentBytes, QUICK.retireGrace(), QUICK.maxFrameBytes(),
                QUICK.maxRepliesInFlight(), QUICK.ecLargeBlock(), QUICK.ecSmallBlock());
    }

    /** {@link #segments}, for the tests' EC volumes, whose blocks are small ({@link EcTestVolumes}). */
    public static AgentLimits ecVolumes(long segmentBytes) {
        return new AgentLimits(QUICK.pollInterval(), segmentBytes, QUICK.retireGrace(), QUICK.maxFrameBytes(),
                QUICK.maxRepliesInFlight(), EcTestVolumes.TEST_LARGE_BLOCK, EcTestVolumes.TEST_SMALL_BLOCK);
    }

    /** The same limits with more {@code agent:} lines. */
    public AgentSetup and(String moreYaml) {
        return new AgentSetup(agentYaml.isBlank() ? moreYaml : agentYaml + "\n" + moreYaml, limits);
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
