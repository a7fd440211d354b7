package org.seaweedfs.rdma.sidecar.fallback;

import io.vertx.core.Future;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.volume.FileId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which volume servers a fallback read tries, in order: the client's hint first (when {@link HintPolicy} lets it
 * be followed), then the master's replicas (deduplicated, in the master's order); without a master and a hint, the
 * configured volume servers ({@code sidecar.volumeServers}) in their order. A replica that fails (down, 5xx,
 * corrupt, not found) makes the next one be tried; an answer that no replica would change (bad request, too large,
 * range not satisfiable) ends the read. When every replica failed the most telling failure is reported (corrupt
 * over not found over anything transient) and the master's cached locations are dropped.
 */
final class ReplicaChoice {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaChoice.class);

    private final MasterClient master;
    private final HintPolicy hints;
    /** {@code sidecar.volumeServers} as {@code host:port}: asked in order when there is neither a master nor a hint. */
    private final List<String> volumeServers;

    /** @param master where replicas are looked up; null when only hints and {@code volumeServers} are used */
    ReplicaChoice(MasterClient master, HintPolicy hints, List<HostPort> volumeServers) {
        this.master = master;
        this.hints = hints;
        this.volumeServers = volumeServers.stream().map(HostPort::toString).toList();
    }

    HintPolicy hints() {
        return hints;
    }

    /** {@code fetch} from one server after the other until one serves {@code fid}. */
    Future<NeedleContent> read(FileId fid, String volumeServerHint, Function<String, Future<NeedleContent>> fetch) {
        String hint;
        try {
            hint = volumeServerHint == null || volumeServerHint.isBlank() ? null
                    : VolumeLocation.normalize(volumeServerHint);
        } catch (IllegalArgumentException e) {
            return Future.failedFuture(new ReadFailure(ReadFailure.Kind.BAD_REQUEST, e.getMessage()));
        }
        return servers(fid.volumeId(), hint).compose(servers -> tryServers(fid, servers, 0, null, fetch));
    }

    /** The hint (when it may be followed), then the master's replicas (deduplicated, in order). */
    private Future<List<String>> servers(long volumeId, String givenHint) {
        if (master == null) {
            String hint = hints.followed(givenHint, volumeId, List.of());
            if (hint != null) {
                return Future.succeededFuture(List.of(hint));
            }
            return !volumeServers.isEmpty() ? Future.succeededFuture(volumeServers)
                    : Future.failedFuture(ReadFailure.nothingAsked("no volume server known for volume " + volumeId
                    + " (set sidecar.master or sidecar.volumeServers, or pass volume_server)"));
        }
        return master.lookup(volumeId).transform(ar -> {
            List<VolumeLocation> listed = ar.succeeded() ? ar.result().locations() : List.of();
            String hint = hints.followed(givenHint, volumeId, listed);
            Set<String> servers = new LinkedHashSet<>();
            if (hint != null) {
                servers.add(hint);
            }
            if (ar.succeeded()) {
                listed.forEach(l -> servers.add(l.url()));
            } else if (hint == null) {
                return Future.failedFuture(ar.cause());
            }
            if (servers.isEmpty()) {
                return Future.failedFuture(ReadFailure.unavailable("master lists no location for volume " + volumeId,
                        null));
            }
            return Future.succeededFuture(List.copyOf(servers));
        });
    }

    private Future<NeedleContent> tryServers(FileId fid, List<String> servers, int index, ReadFailure worst,
                                             Function<String, Future<NeedleContent>> fetch) {
        if (index == servers.size()) {
            if (master != null && worst.retriable()) {
                master.invalidate(fid.volumeId());
            }
            return Future.failedFuture(worst);
        }
        String server = servers.get(index);
        return fetch.apply(server).recover(e -> {
            ReadFailure failure = e instanceof ReadFailure rf ? rf
                    : ReadFailure.unavailable(server + ": " + e.getMessage(), e);
            if (failure.kind() == ReadFailure.Kind.BAD_REQUEST || failure.kind() == ReadFailure.Kind.TOO_LARGE
                    || failure.kind() == ReadFailure.Kind.RANGE_NOT_SATISFIABLE) {
                return Future.failedFuture(failure);
            }
            if (index + 1 < servers.size()) {
                LOG.debug("Volume server {} could not serve {} ({}), trying the next replica", server, fid,
                        failure.getMessage());
            }
            return tryServers(fid, servers, index + 1, moreTelling(worst, failure), fetch);
        });
    }

    /** What to report when every server failed: corrupt data over not found over anything transient. */
    private static ReadFailure moreTelling(ReadFailure a, ReadFailure b) {
        if (a == null) {
            return b;
        }
        return rank(b) > rank(a) ? b : a;
    }

    private static int rank(ReadFailure f) {
        return switch (f.kind()) {
            case CORRUPT -> 3;
            case NOT_FOUND -> 2;
            default -> 1;
        };
    }
}
