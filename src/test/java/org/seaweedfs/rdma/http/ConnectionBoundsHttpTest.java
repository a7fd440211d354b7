package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.seaweedfs.rdma.sidecar.Admission;
import org.seaweedfs.rdma.config.HttpConfig;
import org.seaweedfs.rdma.metrics.ReadMeters;
import org.seaweedfs.rdma.sidecar.FixedReadPathStatus;
import org.seaweedfs.rdma.sidecar.InMemoryNeedleSource;
import org.seaweedfs.rdma.testing.Await;
import org.seaweedfs.rdma.volume.FileId;

/** http.headerTimeout, http.idleTimeout and http.maxConnections, seen from raw TCP clients. */
@ExtendWith(VertxExtension.class)
class ConnectionBoundsHttpTest {

    private static final String HEALTH = "GET /health HTTP/1.1\r\nHost: t\r\n\r\n";
    private static final Duration LONG = Duration.ofMinutes(10);

    /** Far more than loopback's socket buffers hold: a client that stops reading stalls the answer. */
    private static final int BIG_NEEDLE_BYTES = 64 << 20;

    /** The time the connections' deadlines are measured in: it stands still until a test moves it. */
    private final AtomicLong clock = new AtomicLong();

    private InMemoryNeedleSource needles;
    private HttpApiContext api;
    private NetClient net;
    private int port;

    private void deploy(Vertx vertx, Duration headerTimeout, Duration idleTimeout,
            int maxConnections) throws Exception {
        HttpConfig http = new HttpConfig("127.0.0.1", 0, 1, null, headerTimeout, idleTimeout, maxConnections);
        needles = new InMemoryNeedleSource(vertx);
        api = new HttpApiContext(needles, new FixedReadPathStatus(), http, BIG_NEEDLE_BYTES,
                new Admission(16), ReadMeters.noop(), null,
                new ConnectionBounds(http, ReadMeters.nowhere(), clock::get));
        HttpApiVerticle verticle = new HttpApiVerticle(api);
        vertx.deployVerticle(verticle).await(10, TimeUnit.SECONDS);
        port = verticle.actualPort();
        net = vertx.createNetClient();
    }

    /** A raw connection: what it received and a future completed when the server closes it. */
    private record Raw(NetSocket socket, Buffer received, Future<Void> closed) {
        /** Sends {@code text} and waits for one complete /health answer. */
        void roundTrip(String text) throws Exception {
            int before = received.length();
            Promise<Void> answered = Promise.promise();
            socket.handler(b -> {
                received.appendBuffer(b);
                String got = received.getString(before, received.length());
                if (got.contains("\r\n\r\n") && got.endsWith("}")) {
                    answered.tryComplete();
                }
            });
            socket.write(text);
            answered.future().await(10, TimeUnit.SECONDS);
            assertTrue(received.getString(before, received.length()).startsWith("HTTP/1.1 200"), received.toString());
        }
    }

    /** Handlers are set as the connect completes, on the socket's context: a close right at accept is seen. */
    private Raw connect() throws Exception {
        return net.connect(port, "127.0.0.1").map(socket -> {
            Buffer received = Buffer.buffer();
            Promise<Void> closed = Promise.promise();
            socket.handler(received::appendBuffer);
            socket.closeHandler(v -> closed.tryComplete());
            return new Raw(socket, received, closed.future());
        }).await(10, TimeUnit.SECONDS);
    }

    /**
     * Moves the clock on by {@code step} at each look until {@code done} holds: a connection's clock starts when the
     * server sees it (accepted, or its answer sent), which the test cannot observe, so time moves on until the server
     * acts, however late it saw the connection.
     */
    private void advanceUntil(String what, Duration step, java.util.function.BooleanSupplier done) {
        Await.until(what, () -> {
            clock.addAndGet(step.toNanos());
            return done.getAsBoolean();
        });
    }

    @Test
    void halfSentHeaderIsClosedAfterTheHeaderTimeout(Vertx vertx) throws Exception {
        deploy(vertx, Duration.ofMillis(300), LONG, 100);
        Raw raw = connect();
        raw.socket().write("GET /health HTTP/1.1\r\nHost: t\r\n");
        advanceUntil("the half-sent header timed out", Duration.ofMillis(300), raw.closed()::isComplete);
        assertEquals(0, raw.received().length(), "nothing is answered to a request that never completed");
        assertEquals(1, api.connections().headerTimeouts());
    }

    @Test
    void silentConnectionIsClosedAfterTheHeaderTimeout(Vertx vertx) throws Exception {
        deploy(vertx, Duration.ofMillis(300), LONG, 100);
        Raw raw = connect();
        advanceUntil("the silent connection timed out", Duration.ofMillis(300), raw.closed()::isComplete);
        assertEquals(1, api.connections().headerTimeouts());
    }

    @Test
    void keepAliveConnectionMustSendItsNextHeadersInTime(Vertx vertx) throws Exception {
        deploy(vertx, Duration.ofMillis(300), LONG, 100);
        Raw raw = connect();
        raw.roundTrip(HEALTH);
        raw.socket().write("GET /health HT");
        advanceUntil("the next header timed out", Duration.ofMillis(300), raw.closed()::isComplete);
        assertEquals(1, api.connections().headerTimeouts());
    }

    @Test
    void idleKeepAliveConnectionIsClosedAfterTheIdleTimeout(Vertx vertx) throws Exception {
        deploy(vertx, LONG, Duration.ofMillis(300), 100);
        Raw raw = connect();
        raw.roundTrip(HEALTH);
        advanceUntil("the idle connection timed out", Duration.ofMillis(300), raw.closed()::isComplete);
        assertEquals(0, api.connections().headerTimeouts(), "closed for idleness, not for its headers");
        assertEquals(1, api.connections().idleTimeouts());
    }

    @Test
    void clientThatStopsReadingItsAnswerIsClosedAfterTheIdleTimeout(Vertx vertx) throws Exception {
        deploy(vertx, LONG, Duration.ofMillis(300), 100);
        FileId fid = FileId.parse("3,01637037d6");
        needles.put(fid, new byte[BIG_NEEDLE_BYTES], "big.bin", "application/octet-stream", 0, Map.of());
        Raw raw = connect();
        raw.socket().write("GET /" + fid + " HTTP/1.1\r\nHost: t\r\n\r\n");
        raw.socket().pause(); // reads nothing more: the answer stalls once the socket buffers are full
        Await.until("the answer is being written", () -> needles.unreleased() > 0);
        advanceUntil("the server closes the stalled connection", Duration.ofMillis(300),
                () -> api.connections().idleTimeouts() == 1);
        raw.socket().resume(); // a paused socket hears of the close only once it reads again
        raw.closed().await(30, TimeUnit.SECONDS);
        assertTrue(raw.received().length() < BIG_NEEDLE_BYTES, "the answer never completed");
        assertEquals(0, api.connections().headerTimeouts());
        assertEquals(0, needles.unreleased(), "the stalled answer's buffers came back");
    }

    @Test
    void connectionsOverTheLimitAreRefused(Vertx vertx) throws Exception {
        deploy(vertx, LONG, LONG, 2);
        Raw first = connect();
        Raw second = connect();
        // A full round trip on each: both were accepted and counted before the third arrives.
        first.roundTrip(HEALTH);
        second.roundTrip(HEALTH);
        Raw third = connect();
        third.socket().write(HEALTH);
        third.closed().await(20, TimeUnit.SECONDS);
        assertEquals(0, third.received().length(), "a refused connection is answered nothing");
        assertEquals(1, api.connections().refused());
        // The open ones keep working, and a closed one frees its slot.
        first.roundTrip(HEALTH);
        first.socket().close().await(10, TimeUnit.SECONDS);
        connectOnceSlotFree();
        assertEquals(2, api.connections().open());
    }

    /**
     * The server sees a client's close a moment after the client: connect until one connection is served
     * (or fail), and leave it open.
     */
    private void connectOnceSlotFree() throws Exception {
        for (int attempt = 0; attempt < 100; attempt++) {
            Raw raw = connect();
            Promise<Void> answered = Promise.promise();
            raw.socket().handler(b -> {
                raw.received().appendBuffer(b);
                answered.tryComplete();
            });
            raw.closed().onComplete(v -> answered.tryFail("refused"));
            raw.socket().write(HEALTH);
            try {
                answered.future().await(10, TimeUnit.SECONDS);
                assertTrue(raw.received().toString().startsWith("HTTP/1.1 200"), raw.received().toString());
                return;
            } catch (Exception refused) {
                // still counted open on the server
            }
        }
        throw new AssertionError("no slot freed after a connection closed");
    }
}
