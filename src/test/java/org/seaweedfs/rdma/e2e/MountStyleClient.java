package org.seaweedfs.rdma.e2e;

import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.function.Function;

/**
 * A client doing what {@code weed mount -rdma.enabled -rdma.sidecar=} does (weed/mount/rdma_client.go,
 * filehandle_read.go): {@code /health} once at start (RDMA on for the mount's life only on 200 with
 * {@code status == "healthy"} and {@code rdma.enabled}), then per slice {@code GET /read?file_id=&offset=&size=
 * &volume_server=}; a non-200 or an answer not marked RDMA ({@code X-Source} containing {@code rdma} or
 * {@code X-RDMA-Used: true}) is discarded and the slice read again from the volume server. Counts what crossed
 * the network, for the cost comparison of the two answers a sidecar can give.
 */
final class MountStyleClient implements AutoCloseable {

    private final WebClient http;
    private final int sidecarPort;
    private final String volumeServer;
    /** The read token the master would hand out with the lookup (null: the cluster needs none). */
    private final Function<String, String> tokenFor;
    private boolean rdma;
    int healthChecks;
    int rdmaSlices;
    int volumeServerSlices;
    /** Bytes the sidecar sent that were thrown away (not marked RDMA). */
    long discardedBytes;
    /** Bytes read from the volume server by the client itself. */
    long volumeServerBytes;

    MountStyleClient(Vertx vertx, int sidecarPort, String volumeServer, Function<String, String> tokenFor) {
        this.http = WebClient.create(vertx, new WebClientOptions().setDecompressionSupported(false).setKeepAlive(true));
        this.sidecarPort = sidecarPort;
        this.volumeServer = volumeServer;
        this.tokenFor = tokenFor;
    }

    /** The mount's start: one health check decides RDMA for the mount's whole life. */
    boolean start() {
        healthChecks++;
        HttpResponse<Buffer> health = await(http.get(sidecarPort, "127.0.0.1", "/health").send());
        if (health.statusCode() != 200) {
            return rdma = false;
        }
        JsonObject body = health.bodyAsJsonObject();
        rdma = "healthy".equals(body.getString("status")) && body.getJsonObject("rdma").getBoolean("enabled", false);
        return rdma;
    }

    /** RDMA on whatever the health check said (to measure a sidecar whose /health the mount would refuse). */
    void rdmaOn() {
        rdma = true;
    }

    /** One slice of a chunk, as the mount reads it. */
    byte[] read(String fid, long offset, long size) {
        if (rdma) {
            HttpResponse<Buffer> r =
                    await(http.get(sidecarPort, "127.0.0.1", "/read?file_id=" + fid + "&offset=" + offset
                    + "&size=" + size + "&volume_server=http://" + volumeServer).send());
            boolean marked = String.valueOf(r.getHeader("X-Source")).contains("rdma")
                    || "true".equals(r.getHeader("X-RDMA-Used"));
            if (r.statusCode() == 200 && marked) {
                rdmaSlices++;
                return r.body() == null ? new byte[0] : r.body().getBytes();
            }
            if (r.statusCode() == 200) { // slice bytes not marked RDMA (an error's JSON body is no slice)
                discardedBytes += r.body() == null ? 0 : r.body().length();
            }
        }
        volumeServerSlices++;
        int colon = volumeServer.lastIndexOf(':');
        HttpRequest<Buffer> get = http.get(Integer.parseInt(volumeServer.substring(colon + 1)),
                volumeServer.substring(0, colon), "/" + fid).putHeader("Range", "bytes=" + offset + "-"
                        + (offset + size - 1));
        String token = tokenFor == null ? null : tokenFor.apply(fid);
        if (token != null) {
            get.putHeader("Authorization", "Bearer " + token);
        }
        HttpResponse<Buffer> r = await(get.send());
        if (r.statusCode() != 206 && r.statusCode() != 200) {
            throw new IllegalStateException("volume server answered " + r.statusCode() + " for " + fid);
        }
        byte[] bytes = r.body() == null ? new byte[0] : r.body().getBytes();
        volumeServerBytes += bytes.length;
        return bytes;
    }

    @Override
    public void close() {
        http.close();
    }
}
