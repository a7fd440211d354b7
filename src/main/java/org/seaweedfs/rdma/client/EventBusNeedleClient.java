package org.seaweedfs.rdma.client;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@link NeedleClient} over the event-bus API ({@code seaweedfs.needle.read} / {@code .stat} / {@code .readMany}),
 * same JVM or clustered. The fid, offset and length are checked here as the sidecar checks them, so a bad request
 * fails the same way without a round trip.
 */
final class EventBusNeedleClient implements NeedleClient {

    /** The event-bus API's addresses (EventBusApiVerticle's; repeated here so clients need no server class). */
    static final String READ_ADDRESS = "seaweedfs.needle.read";
    static final String STAT_ADDRESS = "seaweedfs.needle.stat";
    static final String READ_MANY_ADDRESS = "seaweedfs.needle.readMany";

    private final Vertx vertx;
    private final DeliveryOptions options;

    EventBusNeedleClient(Vertx vertx, DeliveryOptions options) {
        this.vertx = vertx;
        this.options = new DeliveryOptions(options);
    }

    @Override
    public Future<Needle> read(String fid, long offset, long length) {
        JsonObject request;
        try {
            request = request(fid);
            if (NeedleWire.atLeast("offset", offset, 0) > 0) {
                request.put("offset", offset);
            }
            if (NeedleWire.atLeast("length", length, -1) >= 0) {
                request.put("length", length);
            }
        } catch (NeedleException e) {
            return Future.failedFuture(e);
        }
        return this.<Buffer, Needle>send(READ_ADDRESS, request,
                m -> NeedleWire.needle(fid, m.headers(), m.body()));
    }

    @Override
    public Future<NeedleInfo> stat(String fid) {
        JsonObject request;
        try {
            request = request(fid);
        } catch (NeedleException e) {
            return Future.failedFuture(e);
        }
        return this.<JsonObject, NeedleInfo>send(STAT_ADDRESS, request, m -> NeedleInfo.fromJson(m.body()));
    }

    @Override
    public Future<List<NeedleResult>> readMany(List<String> fids) {
        List<String> asked = new ArrayList<>(fids);
        JsonArray list = new JsonArray(new ArrayList<>(asked));
        return this.<Buffer, List<NeedleResult>>send(READ_MANY_ADDRESS, new JsonObject().put("fids", list),
                m -> NeedleFrame.read(m.body(), asked));
    }

    /** Sends the request; a failed reply or one {@code decode} rejects becomes a {@link NeedleException}. */
    private <B, T> Future<T> send(String address, JsonObject request, Function<Message<B>, T> decode) {
        return vertx.eventBus().<B>request(address, request, options).transform(ar -> {
            if (ar.failed()) {
                return Future.failedFuture(NeedleWire.failure(ar.cause(), address));
            }
            try {
                return Future.succeededFuture(decode.apply(ar.result()));
            } catch (NeedleException e) {
                return Future.failedFuture(e);
            } catch (RuntimeException e) { // a reply of the wrong shape
                return Future.failedFuture(new NeedleException(NeedleException.Kind.INTERNAL,
                        "unexpected reply from " + address + ": " + e.getMessage(), e));
            }
        });
    }

    private static JsonObject request(String fid) {
        NeedleWire.fileId(fid);
        return new JsonObject().put("fid", fid);
    }
}
