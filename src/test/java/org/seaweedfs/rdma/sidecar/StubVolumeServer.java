package org.seaweedfs.rdma.sidecar;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.Needle;
import org.seaweedfs.rdma.volume.NeedleMeta;
import org.seaweedfs.rdma.volume.Volume;
import org.seaweedfs.rdma.volume.VolumeDirectory;
import org.seaweedfs.rdma.volume.VolumeFiles;

/**
 * STAND-IN for a SeaweedFS volume server (which cannot run here): serves real volume files through the volume
 * package with the volume server's documented read semantics for {@code GET|HEAD /<vid>,<fid>} and
 * {@code /<vid>/<fid>}: ETag = CRC-32C of the stored data, Content-Type (stored mime), Content-Disposition
 * with the name, Last-Modified, gzip as stored when accepted (else decompressed), empty 404 for missing,
 * deleted or wrong-cookie needles, 400 for malformed ids. Tests can make it lie about the ETag, fail with a
 * status, or count requests.
 */
public final class StubVolumeServer {

    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    private final Vertx vertx;
    private final Map<Long, Volume> volumes = new HashMap<>();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile boolean corruptEtag;
    private volatile int failWith;
    private HttpServer server;

    public StubVolumeServer(Vertx vertx) {
        this.vertx = vertx;
    }

    /** Opens every volume in {@code dir} and listens on an ephemeral port. */
    public Future<StubVolumeServer> start(Path dir) {
        try {
            for (VolumeFiles files : VolumeDirectory.scan(dir).volumes()) {
                volumes.put(files.volumeId(), Volume.open(files, IndexFormat.OFFSET4));
            }
        } catch (IOException e) {
            return Future.failedFuture(e);
        }
        server = vertx.createHttpServer().requestHandler(this::handle);
        return server.listen(0, "127.0.0.1").map(s -> this);
    }

    public int port() {
        return server.actualPort();
    }

    /** {@code 127.0.0.1:<port>}, as the master lists volume servers. */
    public String url() {
        return "127.0.0.1:" + port();
    }

    /** Answer with an ETag that does not match the body. */
    public void corruptEtag(boolean on) {
        corruptEtag = on;
    }

    /** Every request answers this status (0: serve normally). */
    public void failWith(int status) {
        failWith = status;
    }

    public int requests() {
        return requests.get();
    }

    public Future<Void> stop() {
        volumes.values().forEach(v -> {
            try {
                v.close();
            } catch (IOException ignored) {
                // test teardown
            }
        });
        return server == null ? Future.succeededFuture() : server.close();
    }

    private void handle(HttpServerRequest request) {
        requests.incrementAndGet();
        if (failWith != 0) {
            request.response().setStatusCode(failWith).end();
            return;
        }
        FileId fid;
        try {
            fid = parse(request.path());
        } catch (IllegalArgumentException e) {
            request.response().setStatusCode(400).end();
            return;
        }
        Volume volume = volumes.get(fid.volumeId());
        if (volume == null) {
            request.response().setStatusCode(404).end();
            return;
        }
        boolean gzipOk = String.valueOf(request.getHeader("Accept-Encoding")).contains("gzip");
        vertx.<Optional<Needle>>executeBlocking(() -> volume.read(fid, System.currentTimeMillis())).onComplete(ar -> {
            if (ar.failed()) {
                request.response().setStatusCode(500).end();
                return;
            }
            if (ar.result().isEmpty() || ar.result().get().dataLength() == 0) {
                request.response().setStatusCode(404).end();
                return;
            }
            try {
                respond(request, ar.result().get(), gzipOk);
            } catch (IOException e) {
                request.response().setStatusCode(500).end();
            }
        });
    }

    private void respond(HttpServerRequest request, Needle needle, boolean gzipOk) throws IOException {
        byte[] stored = bytes(needle.data());
        NeedleMeta meta = needle.meta();
        int crc = needle.computeCrc();
        var response = request.response();
        response.putHeader("ETag", "\"" + String.format("%08x", corruptEtag ? crc ^ 1 : crc) + "\"");
        response.putHeader("Accept-Ranges", "bytes");
        if (!meta.mime().isEmpty()) {
            response.putHeader("Content-Type", meta.mime());
        }
        if (!meta.name().isEmpty()) {
            response.putHeader("Content-Disposition",
                    "inline; filename=\"" + meta.name().replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
        }
        if (meta.hasLastModified()) {
            response.putHeader("Last-Modified", HTTP_DATE.format(Instant.ofEpochSecond(meta.lastModified())));
        }
        byte[] body = stored;
        if (meta.isCompressed()) {
            if (gzipOk) {
                response.putHeader("Content-Encoding", "gzip");
            } else {
                try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(stored))) {
                    body = in.readAllBytes();
                }
            }
        }
        if ("HEAD".equals(request.method().name())) {
            response.putHeader("Content-Length", Integer.toString(body.length)).end();
        } else {
            response.end(Buffer.buffer(body));
        }
    }

    private static byte[] bytes(ByteBuffer data) {
        ByteBuffer d = data.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    /** {@code /<vid>,<fid>[.ext]} or {@code /<vid>/<fid>[.ext]}. */
    private static FileId parse(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        int sep = p.indexOf(',');
        if (sep < 0) {
            sep = p.indexOf('/');
        }
        if (sep <= 0) {
            throw new IllegalArgumentException(path);
        }
        String rest = p.substring(sep + 1);
        int dot = rest.indexOf('.');
        if (dot >= 0) {
            rest = rest.substring(0, dot);
        }
        int slash = rest.indexOf('/');
        if (slash >= 0) {
            rest = rest.substring(0, slash);
        }
        return FileId.parsePath(FileId.parseVolumeId(p.substring(0, sep)), rest);
    }
}
