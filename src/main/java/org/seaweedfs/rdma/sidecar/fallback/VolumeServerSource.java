package org.seaweedfs.rdma.sidecar.fallback;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Duration;
import java.util.List;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleSource;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.tls.ClientTls;
import org.seaweedfs.rdma.volume.FileId;

/**
 * The HTTP fallback: reads a needle from a SeaweedFS volume server. Its parts: which servers are tried in which
 * order ({@link ReplicaChoice}), whether a client's {@code volume_server} hint may be followed at all
 * ({@link HintPolicy}, a security policy), the request to one server ({@link VolumeServerFetch}, with a read token
 * from {@link ReadTokens} when the cluster needs one), the CRC checks of its answer ({@link EtagCheck}) and the
 * needle's metadata and pairs from the answer's headers ({@link AnswerHeaders}).
 *
 * <p>Not carried over HTTP: the chunk-manifest flag (the volume server resolves manifests itself).
 */
public final class VolumeServerSource implements NeedleSource {

    private final ReplicaChoice replicas;
    private final VolumeServerFetch fetch;

    /**
     * @param client         a pooled client, see {@link #newClient(Vertx, int)}
     * @param master         where replicas are looked up; null when only hints are used
     * @param maxNeedleBytes larger bodies are refused ({@code sidecar.maxNeedleBytes})
     * @param timeout        one request to one server ({@code sidecar.readTimeout})
     */
    public VolumeServerSource(WebClient client, MasterClient master, long maxNeedleBytes, Duration timeout) {
        this(client, master, List.of(), maxNeedleBytes, timeout, null);
    }

    /**
     * @param volumeServers servers a client's hint may name besides the master's locations, and, without a master,
     *                      the servers asked in order when a read comes with no hint ({@code sidecar.volumeServers})
     */
    public VolumeServerSource(WebClient client, MasterClient master, List<HostPort> volumeServers, long maxNeedleBytes,
                              Duration timeout) {
        this(client, master, volumeServers, maxNeedleBytes, timeout, null);
    }

    /** @param tokens read tokens for volume servers that need them ({@code http.jwtReadKey}); null: none sent */
    public VolumeServerSource(WebClient client, MasterClient master, List<HostPort> volumeServers, long maxNeedleBytes,
                              Duration timeout, ReadTokens tokens) {
        this.replicas = new ReplicaChoice(master, new HintPolicy(volumeServers, master != null), volumeServers);
        this.fetch = new VolumeServerFetch(client, tokens, maxNeedleBytes, Math.max(1, timeout.toMillis()));
    }

    /** Hints refused because they named a server neither configured nor listed by the master. */
    public long refusedHints() {
        return replicas.hints().refused();
    }

    /** A keep-alive client pool that leaves bodies compressed (the checksum is over the stored bytes). */
    public static WebClient newClient(Vertx vertx, int maxPoolSize) {
        return newClient(vertx, maxPoolSize, null);
    }

    /**
     * As {@link #newClient(Vertx, int)}, every request over HTTPS when {@code tls} is set (the master's lookups and the
     * volume servers' reads alike, as SeaweedFS's clients do with {@code [https.client] enabled}).
     */
    public static WebClient newClient(Vertx vertx, int maxPoolSize, ClientTls tls) {
        WebClientOptions options = new WebClientOptions()
                .setDecompressionSupported(false)
                .setKeepAlive(true)
                .setUserAgent("seaweedfs-rdma-sidecar")
                .setFollowRedirects(false);
        return WebClient.create(vertx, tls == null ? options : tls.applyTo(options),
                new PoolOptions().setHttp1MaxSize(maxPoolSize));
    }

    @Override
    public Future<NeedleStat> stat(FileId fid) {
        return read(fid).map(content -> {
            NeedleStat stat = content.stat();
            content.release();
            return stat;
        });
    }

    @Override
    public Future<NeedleContent> read(FileId fid) {
        return read(fid, null);
    }

    @Override
    public Future<NeedleContent> read(FileId fid, String volumeServerHint) {
        return replicas.read(fid, volumeServerHint, server -> fetch.whole(server, fid));
    }

    /** A Range request for the slice; the whole needle (offset 0, to the end) is read as stored and verified here. */
    @Override
    public Future<NeedleContent> readSlice(FileId fid, String volumeServerHint, long offset, long length,
                                           long maxPlainBytes) {
        if (offset == 0 && length < 0) {
            return NeedleSource.super.readSlice(fid, volumeServerHint, offset, length, maxPlainBytes);
        }
        return replicas.read(fid, volumeServerHint, server -> fetch.slice(server, fid, offset, length, maxPlainBytes));
    }
}
