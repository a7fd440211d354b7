package org.seaweedfs.rdma.http;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import io.vertx.core.net.SocketAddress;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.sidecar.ByteChunks;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPath;
import org.seaweedfs.rdma.volume.FileId;

/**
 * {@code GET /read?file_id=&offset=&size=&volume_server=} — the {@code weed mount} contract: the body is
 * the needle's bytes from {@code offset}, {@code size} of them. Offsets count the file's bytes, so a
 * gzip-stored needle is decompressed first (as the volume server does for range reads). Like a file
 * read, a slice running past the end is cut short (Content-Length says how much came); an offset past
 * the end is 416. {@code size} may be left out (to the end). The source reads only the slice where it can (the
 * HTTP fallback asks the volume server for that range). {@code X-Source} names the path that served
 * the read and {@code X-RDMA-Used} says whether it was RDMA. Errors are JSON, naming the bad parameter.
 *
 * <p>With {@code http.jwtReadKey} set, clients in {@code http.readSliceClients} (loopback by default: the mount on
 * this host) need no read token here; others need one as for a needle URL. With {@code http.readSliceFallback:
 * false} (the default) a slice RDMA cannot serve answers 503 at once: the mount then reads the volume server itself,
 * which it would do anyway for bytes not marked RDMA (the README's "/read and weed mount" has the numbers).
 */
final class ReadSliceHandler implements Handler<RoutingContext> {

    /** Where a read's bytes came from, sent with every needle answer (names and flag values encoded once). */
    private static final CharSequence X_SOURCE = HttpHeaders.createOptimized("X-Source");
    private static final CharSequence X_RDMA_USED = HttpHeaders.createOptimized("X-RDMA-Used");
    private static final CharSequence TRUE = HttpHeaders.createOptimized("true");
    private static final CharSequence FALSE = HttpHeaders.createOptimized("false");

    private final HttpApiContext api;
    private final JwtReadAuth auth;

    ReadSliceHandler(HttpApiContext api, JwtReadAuth auth) {
        this.api = api;
        this.auth = auth;
    }

    private record Slice(FileId fid, long offset, long size, String volumeServer) {
    }

    @Override
    public void handle(RoutingContext ctx) {
        Slice slice;
        try {
            slice = parse(ctx.request());
        } catch (IllegalArgumentException e) {
            api.meters().recordRead("none", "bad_request", 0);
            HttpErrors.send(ctx.response(), 400, e.getMessage());
            return;
        }
        (mayReadWithoutToken(ctx.request()) ? Future.<Void>succeededFuture() : auth.check(ctx.request(), slice.fid()))
                .onComplete(ar -> {
            if (ar.failed()) {
                api.meters().recordRead("none", "unauthorized", 0);
                HttpErrors.send(ctx.response(), 401, ar.cause().getMessage());
                return;
            }
            ReadScope scope = new ReadScope(api.meters());
            api.sliceSource().readSlice(slice.fid(), slice.volumeServer(), slice.offset(), slice.size(),
                    api.maxNeedleBytes())
                    .compose(content -> send(ctx.response(), content))
                    .onComplete(sent -> {
                        if (sent.failed()) {
                            scope.failed(ctx.response(), sent.cause(), false);
                        } else {
                            scope.sent(sent.result().source(), true, sent.result().bytes());
                        }
                    });
        });
    }

    /**
     * {@code http.readSliceClients}: the {@code weed mount}s that send no token (a client without an address: none).
     */
    private boolean mayReadWithoutToken(HttpServerRequest request) {
        SocketAddress remote = request.remoteAddress();
        if (remote == null || remote.hostAddress() == null) {
            return false;
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(remote.hostAddress()); // the peer's literal address: no lookup
        } catch (UnknownHostException e) {
            return false;
        }
        return api.http().readSliceClients().stream().anyMatch(n -> n.contains(address));
    }

    private record Sent(String source, long bytes) {
    }

    /** The slice's bytes (the source cut them and decompressed a gzip-stored needle). */
    private Future<Sent> send(HttpServerResponse response, NeedleContent content) {
        NeedleStat stat = content.stat();
        long count = ByteChunks.of(content.chunks()).length();
        response.setStatusCode(200)
                .putHeader("Content-Type", "application/octet-stream")
                .putHeader("Content-Length", Long.toString(count))
                .putHeader("ETag", stat.quotedEtag());
        putSourceHeaders(response, stat);
        return BodyStreamer.stream(response, content.chunks())
                .andThen(ar -> content.release())
                .recover(e -> Future.failedFuture(new ReadFailure(ReadFailure.Kind.UNAVAILABLE, e.getMessage())))
                .map(new Sent(stat.source(), count));
    }

    private static Slice parse(HttpServerRequest request) {
        String fileId = request.getParam("file_id");
        if (fileId == null || fileId.isEmpty()) {
            throw new IllegalArgumentException("file_id: missing");
        }
        FileId fid;
        try {
            fid = FileId.parse(fileId);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("file_id: " + e.getMessage());
        }
        long offset = number(request, "offset", 0);
        long size = number(request, "size", -1);
        String volumeServer = request.getParam("volume_server");
        if (volumeServer != null && !volumeServer.isEmpty()) {
            checkVolumeServer(volumeServer);
        }
        return new Slice(fid, offset, size, volumeServer == null || volumeServer.isEmpty() ? null : volumeServer);
    }

    private static long number(HttpServerRequest request, String name, long absent) {
        String text = request.getParam(name);
        if (text == null || text.isEmpty()) {
            return absent;
        }
        if (text.length() > 18 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(name + ": must be a non-negative integer, got '" + text + "'");
        }
        return Long.parseLong(text);
    }

    /** http(s)://host:port[/], or host:port. */
    private static void checkVolumeServer(String text) {
        try {
            if (text.contains("://")) {
                URI uri = new URI(text);
                if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                    throw new IllegalArgumentException("volume_server: expected http://host:port, got '" + text + "'");
                }
            } else {
                HostPort.parse(text);
            }
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("volume_server: not a URL: '" + text + "'");
        } catch (IllegalArgumentException e) {
            throw e.getMessage().startsWith("volume_server") ? e
                    : new IllegalArgumentException("volume_server: " + e.getMessage());
        }
    }

    /** Which path served the bytes: {@code X-Source} (rdma, read-through, http) and {@code X-RDMA-Used}. */
    static void putSourceHeaders(HttpServerResponse response, NeedleStat stat) {
        response.putHeader(X_SOURCE, stat.source())
                .putHeader(X_RDMA_USED, ReadPath.RDMA.is(stat.source()) ? TRUE : FALSE);
    }
}
