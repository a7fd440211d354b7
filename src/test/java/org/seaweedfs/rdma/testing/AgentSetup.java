package org.seaweedfs.rdma.testing;

import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.seaweedfs.rdma.RoleSettings;
import org.seaweedfs.rdma.agent.AgentLayout;
import org.seaweedfs.rdma.agent.AgentSettings;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.volume.ec.EcTestVolumes;

/**
 * A test agent's setup: the lines of its {@code agent:} section, as an operator writes them (built into settings by
 * the configuration loader, as {@code serve} does), and the layout it runs with.
 *
 * @param agentYaml lines of the {@code agent:} section (e.g. {@code "offset5: true"}); {@code listen} defaults to
 *                  {@code 127.0.0.1:0} and {@code volumeDirs} to the harness's directory when not given
 * @param layout    the agent's layout: {@link AgentLayout#FIXED}, or smaller pieces to reach a bound with small volumes
 */
public record AgentSetup(String agentYaml, AgentLayout layout) {

    /** What {@code serve} runs with an empty {@code agent:} section. */
    public static final AgentSetup DEFAULTS = new AgentSetup("", AgentLayout.FIXED);

    /** The given {@code agent:} lines, the fixed layout. */
    public static AgentSetup config(String agentYaml) {
        return new AgentSetup(agentYaml, AgentLayout.FIXED);
    }

    /** Default configuration, this layout. */
    public static AgentSetup layout(AgentLayout layout) {
        return new AgentSetup("", layout);
    }

    /** The fixed layout but {@code .dat} files mapped in pieces of {@code segmentBytes}. */
    public static AgentLayout segments(long segmentBytes) {
        AgentLayout f = AgentLayout.FIXED;
        return new AgentLayout(segmentBytes, f.ecLargeBlock(), f.ecSmallBlock(), f.maxFrameBytes(),
                f.maxRepliesInFlight());
    }

    /** {@link #segments}, for the tests' EC volumes, whose blocks are small ({@link EcTestVolumes}). */
    public static AgentLayout ecVolumes(long segmentBytes) {
        AgentLayout f = AgentLayout.FIXED;
        return new AgentLayout(segmentBytes, EcTestVolumes.TEST_LARGE_BLOCK, EcTestVolumes.TEST_SMALL_BLOCK,
                f.maxFrameBytes(), f.maxRepliesInFlight());
    }

    /** The same layout with more {@code agent:} lines. */
    public AgentSetup and(String moreYaml) {
        return new AgentSetup(agentYaml.isBlank() ? moreYaml : agentYaml + "\n" + moreYaml, layout);
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
