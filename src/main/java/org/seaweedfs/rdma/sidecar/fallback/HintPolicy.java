package org.seaweedfs.rdma.sidecar.fallback;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.seaweedfs.rdma.config.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The security policy on a client's {@code volume_server} hint: a hint makes this process connect where an HTTP
 * client says, so it is only followed to a server in {@code sidecar.volumeServers} or among the locations the
 * master lists for that volume. With neither a master nor that list configured every hint is followed (the
 * {@code weed mount} default; conf/config.yaml says to set the list in production). A refused hint is ignored,
 * logged at debug and counted ({@link #refused()}); the read goes on as if none had been given.
 */
final class HintPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(HintPolicy.class);

    /** sidecar.volumeServers, as {@link #serverKey} keys. */
    private final Set<String> allowed;
    private final boolean masterConfigured;
    private final AtomicLong refused = new AtomicLong();

    HintPolicy(List<HostPort> volumeServers, boolean masterConfigured) {
        this.allowed = volumeServers.stream().map(h -> serverKey(h.toString())).collect(Collectors.toUnmodifiableSet());
        this.masterConfigured = masterConfigured;
    }

    /** Hints refused because they named a server neither configured nor listed by the master. */
    long refused() {
        return refused.get();
    }

    /** The hint when it may be fetched from, else null; {@code listed}: the master's locations of the volume. */
    String followed(String hint, long volumeId, List<VolumeLocation> listed) {
        if (hint == null || (!masterConfigured && allowed.isEmpty())) {
            return hint;
        }
        String key = serverKey(hint);
        if (allowed.contains(key)
                || listed.stream().anyMatch(l -> key.equals(serverKey(l.url()))
                        || key.equals(serverKey(l.publicUrl())))) {
            return hint;
        }
        refused.incrementAndGet();
        LOG.debug("Ignored volume_server hint {} for volume {}: neither in sidecar.volumeServers nor listed by the "
                + "master",
                hint, volumeId);
        return null;
    }

    /** host:port compared case-insensitively in the host ("[v6]:port" for IPv6); the text itself when unparsable. */
    private static String serverKey(String hostPort) {
        try {
            HostPort parsed = HostPort.parse(hostPort);
            return new HostPort(parsed.host().toLowerCase(Locale.ROOT), parsed.port()).toString();
        } catch (IllegalArgumentException e) {
            return hostPort;
        }
    }
}
