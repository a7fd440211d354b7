package org.seaweedfs.rdma.cli;

import io.vertx.core.Vertx;
import io.vertx.core.transport.Transport;
import org.seaweedfs.rdma.config.NetworkTransport;
import org.seaweedfs.rdma.internals.VertxInternals;

/**
 * {@code http.transport} resolved against what this host loads: the Vert.x transport {@code serve} runs on, its name
 * and why it was chosen (both logged at start-up). {@code auto} is epoll where it loads, else NIO, and never io_uring:
 * on the 2-core test host io_uring served 4 KiB reads at 64 connections 9.5 % faster than epoll where gets complete
 * inside their call (the agent's UCX copies read over shared memory), but one connection waiting on emulated gets
 * (the defaults) got half the reads (p50 134 against 53 µs): the event loop's polls of its UCX lane cost an
 * {@code io_uring_enter} each. A named transport that cannot load stops the start
 * with the reason.
 *
 * @param transport Vert.x's transport
 * @param name      {@code io_uring}, {@code epoll} or {@code nio}
 * @param reason    why, in an operator's words
 */
record TransportChoice(Transport transport, String name, String reason) {

    /** Against this host's transports. */
    static TransportChoice resolve(NetworkTransport configured) {
        return resolve(configured, Transport.IO_URING, Transport.EPOLL);
    }

    /** Against the given native transports (either may be null: its classes are absent). */
    static TransportChoice resolve(NetworkTransport configured, Transport ioUring, Transport epoll) {
        return switch (configured) {
            case NIO -> named(Transport.NIO, configured);
            case IO_URING -> named(ioUring, configured);
            case EPOLL -> named(epoll, configured);
            case AUTO -> loads(epoll)
                    ? new TransportChoice(epoll, "epoll", "http.transport: auto, epoll loads here")
                    : new TransportChoice(Transport.NIO, "nio", "http.transport: auto, epoll does not load here ("
                            + whyNot(epoll) + ")");
        };
    }

    /** The name of the transport {@code vertx} runs on (an app's instance, or one this class chose). */
    static String nameOf(Vertx vertx) {
        Class<?> running = VertxInternals.transportClass(vertx);
        for (Transport t : new Transport[] {Transport.IO_URING, Transport.EPOLL, Transport.NIO}) {
            if (t != null && t.implementation() != null && t.implementation().getClass() == running) {
                return t.name();
            }
        }
        return running.getSimpleName();
    }

    private static TransportChoice named(Transport transport, NetworkTransport configured) {
        String name = configured.configName();
        if (!loads(transport)) {
            throw new IllegalStateException("http.transport: " + name + " does not load here (" + whyNot(transport)
                    + "); set auto, or another of io_uring, epoll, nio");
        }
        return new TransportChoice(transport, name, "http.transport: " + name);
    }

    private static boolean loads(Transport transport) {
        return transport != null && transport.available();
    }

    private static String whyNot(Transport transport) {
        Throwable cause = transport == null ? null : transport.unavailabilityCause();
        if (cause == null) {
            return transport == null ? "its classes are not on the class path" : "unavailable";
        }
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
