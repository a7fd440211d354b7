package org.seaweedfs.rdma.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.spi.metrics.EventBusMetrics;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Vert.x's event-bus meters - the names and tags vertx-micrometer publishes (Vert.x 4 naming; tagged by side,
 * {@code local} or {@code remote}, never by address) - with every meter resolved once. vertx-micrometer 5.0 builds
 * tags and looks meters up in the registry (re-registering the pending gauge) about four times per message.
 * As there, Vert.x's internal addresses (reply addresses) are not counted.
 */
final class EventBusMeters implements EventBusMetrics<EventBusMeters.Handler> {

    private static final String PREFIX = "vertx.eventbus.";
    private static final String INTERNAL = "__vertx.";

    private final LongAdder handlers = new LongAdder();
    private final Side local;
    private final Side remote;
    private final DistributionSummary bytesWritten;
    private final DistributionSummary bytesRead;
    private final Map<ReplyFailure, Counter> replyFailures = new EnumMap<>(ReplyFailure.class);

    EventBusMeters(MeterRegistry registry) {
        Gauge.builder(PREFIX + "handlers", handlers, LongAdder::sum).description("Number of event bus handlers in use")
                .strongReference(true).register(registry);
        local = new Side(registry, "local");
        remote = new Side(registry, "remote");
        bytesWritten = DistributionSummary.builder(PREFIX + "bytes.written")
                .description("Number of bytes sent while sending messages to event bus cluster peers")
                        .register(registry);
        bytesRead = DistributionSummary.builder(PREFIX + "bytes.read")
                .description("Number of bytes received while reading messages from event bus cluster peers")
                        .register(registry);
        for (ReplyFailure failure : ReplyFailure.values()) {
            replyFailures.put(failure,
                    Counter.builder(PREFIX + "reply.failures").description("Number of message reply failures")
                    .tag("failure", failure.name()).register(registry));
        }
    }

    /** A registered handler of a counted address. */
    static final class Handler {
    }

    /** The meters of one side: messages from this node ({@code local}) or from cluster peers ({@code remote}). */
    private static final class Side {
        final LongAdder pending = new LongAdder();
        final Counter processed;
        final Counter published;
        final Counter sent;
        final Counter received;
        final Counter delivered;
        final Counter discarded;

        Side(MeterRegistry registry, String side) {
            Gauge.builder(PREFIX + "pending", pending,
                    LongAdder::sum).description("Number of messages not processed yet")
                    .tag("side", side).strongReference(true).register(registry);
            processed = counter(registry, "processed", "Number of processed messages", side);
            published = counter(registry, "published", "Number of messages published (publish / subscribe)", side);
            sent = counter(registry, "sent", "Number of messages sent (point-to-point)", side);
            received = counter(registry, "received", "Number of messages received", side);
            delivered = counter(registry, "delivered", "Number of messages delivered to handlers", side);
            discarded = counter(registry, "discarded", "Number of discarded messages", side);
        }

        private static Counter counter(MeterRegistry registry, String name, String description, String side) {
            return Counter.builder(PREFIX + name).description(description).tag("side", side).register(registry);
        }
    }

    private static boolean counted(String address) {
        return !address.startsWith(INTERNAL);
    }

    private Side side(boolean isLocal) {
        return isLocal ? local : remote;
    }

    @Override
    public Handler handlerRegistered(String address) {
        if (!counted(address)) {
            return null;
        }
        handlers.increment();
        return new Handler();
    }

    @Override
    public void handlerUnregistered(Handler handler) {
        if (handler != null) {
            handlers.decrement();
        }
    }

    @Override
    public void messageDelivered(Handler handler, boolean isLocal) {
        if (handler != null) {
            Side side = side(isLocal);
            side.pending.decrement();
            side.processed.increment();
        }
    }

    @Override
    public void discardMessage(Handler handler, boolean isLocal, Message<?> msg) {
        if (handler != null) {
            Side side = side(isLocal);
            side.pending.decrement();
            side.discarded.increment();
        }
    }

    @Override
    public void messageSent(String address, boolean publish, boolean isLocal, boolean isRemote) {
        if (counted(address)) {
            Side side = side(isLocal);
            (publish ? side.published : side.sent).increment();
        }
    }

    @Override
    public void messageReceived(String address, boolean publish, boolean isLocal, int handlerCount) {
        if (counted(address)) {
            Side side = side(isLocal);
            side.received.increment();
            if (handlerCount > 0) {
                side.pending.add(handlerCount);
                side.delivered.increment();
            }
        }
    }

    @Override
    public void messageWritten(String address, int numberOfBytes) {
        if (counted(address)) {
            bytesWritten.record(numberOfBytes);
        }
    }

    @Override
    public void messageRead(String address, int numberOfBytes) {
        if (counted(address)) {
            bytesRead.record(numberOfBytes);
        }
    }

    @Override
    public void replyFailure(String address, ReplyFailure failure) {
        if (counted(address)) {
            replyFailures.get(failure).increment();
        }
    }
}
