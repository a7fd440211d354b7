package org.seaweedfs.rdma.ucx;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What UCX will actually do with the configured settings, for the start-up log. JUCX cannot ask a live endpoint for
 * its lanes, so this asks UCX's own {@code ucx_info} to build endpoints with the same features and settings (same
 * host and other host) and reports the lanes it chose. UCX prints the same with {@code UCX_LOG_LEVEL=info}
 * ({@code ep_cfg[..]: rma(..) am(..)} lines) for the real endpoints.
 */
final class UcxConfigReport {

    private static final Pattern LANE = Pattern.compile("lane\\[(\\d+)\\]:\\s+\\d+:(\\S+)\\s.*?->\\s+\\S+\\s*(.*)$");
    private static final long PROBE_TIMEOUT_SECONDS = 10;

    private UcxConfigReport() {
    }

    /**
     * Runs {@code ucx_info -e} for a peer on this host and on another host, with this process's environment and the
     * context settings, and describes the lanes UCX picks for each.
     */
    static String probeLanes(Map<String, String> config, boolean errorHandling) throws IOException,
            InterruptedException {
        return "same host: " + lanes(config, errorHandling, "intra") + "; other hosts: "
                + lanes(config, errorHandling, "inter");
    }

    private static String lanes(Map<String, String> config, boolean errorHandling, String placement)
            throws IOException, InterruptedException {
        ProcessBuilder builder =
                new ProcessBuilder("ucx_info", "-e", "-u", errorHandling ? "rmwe" : "rmw", "-P", placement)
                .redirectErrorStream(true);
        config.forEach((k, v) -> builder.environment().put(environmentName(k), v));
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IOException("ucx_info is not installed (set UCX_LOG_LEVEL=info to see the lanes UCX picks)", e);
        }
        String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!process.waitFor(PROBE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("ucx_info did not finish");
        }
        return describe(output);
    }

    /**
     * The variable that sets a context key in another process: TCP's keys go by their table's prefix there
     * ({@code RX_SEG_SIZE} is {@code UCX_TCP_RX_SEG_SIZE}); {@code MM_...} keys reach posix and sysv as they are.
     */
    static String environmentName(String contextKey) {
        return contextKey.equals("RX_SEG_SIZE") || contextKey.equals("TX_SEG_SIZE")
                ? "UCX_TCP_" + contextKey : "UCX_" + contextKey;
    }

    /** Summarises {@code ucx_info -e} output as "transport/device(uses), ..." or the UCX error it printed. */
    static String describe(String ucxInfoOutput) {
        List<String> lanes = new ArrayList<>();
        String error = null;
        for (String line : ucxInfoOutput.split("\n")) {
            Matcher m = LANE.matcher(line);
            if (m.find()) {
                String uses = m.group(3).trim();
                lanes.add(m.group(2) + (uses.isEmpty() ? "" : " (" + uses + ")"));
            } else if (line.contains("UCX  ERROR") && error == null) {
                error = line.substring(line.indexOf("UCX  ERROR") + "UCX  ERROR".length()).trim();
            }
        }
        if (!lanes.isEmpty()) {
            return String.join(", ", lanes);
        }
        return error != null ? "none (" + error + ")" : "none reported";
    }
}
