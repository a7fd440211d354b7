package org.seaweedfs.rdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import io.vertx.core.transport.Transport;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.config.NetworkTransport;

/** http.transport against hosts that load io_uring, only epoll, or neither. */
class TransportChoiceTest {

    /** A native transport that loads or not, with Vert.x's own implementation behind it where it does. */
    private static Transport fake(String name, Throwable cause) {
        return new Transport() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean available() {
                return cause == null;
            }

            @Override
            public Throwable unavailabilityCause() {
                return cause;
            }

            @Override
            public io.vertx.core.spi.transport.Transport implementation() {
                return Transport.NIO.implementation();
            }
        };
    }

    private static final Transport URING = fake("io_uring", null);
    private static final Transport EPOLL = fake("epoll", null);
    private static final Transport NO_URING =
            fake("io_uring", new UnsupportedOperationException("io_uring_setup: EPERM"));
    private static final Transport NO_EPOLL =
            fake("epoll", new UnsatisfiedLinkError("no libnetty_transport_native_epoll"));

    @Test
    void autoIsEpollWhereItLoadsEvenWithIoUring() {
        TransportChoice choice = TransportChoice.resolve(NetworkTransport.AUTO, URING, EPOLL);
        assertSame(EPOLL, choice.transport());
        assertEquals("epoll", choice.name());
        assertEquals("http.transport: auto, epoll loads here", choice.reason());
    }

    @Test
    void autoEndsOnNioWhenEpollDoesNotLoadAndSaysWhy() {
        TransportChoice choice = TransportChoice.resolve(NetworkTransport.AUTO, URING, NO_EPOLL);
        assertSame(Transport.NIO, choice.transport());
        assertEquals("nio", choice.name());
        assertEquals("http.transport: auto, epoll does not load here (UnsatisfiedLinkError: "
                + "no libnetty_transport_native_epoll)", choice.reason());
        // Classes absent altogether: Vert.x leaves the constant null.
        assertEquals("http.transport: auto, epoll does not load here (its classes are not on the class path)",
                TransportChoice.resolve(NetworkTransport.AUTO, URING, null).reason());
    }

    @Test
    void ioUringWhenNamedAndLoaded() {
        TransportChoice choice = TransportChoice.resolve(NetworkTransport.IO_URING, URING, EPOLL);
        assertSame(URING, choice.transport());
        assertEquals("io_uring", choice.name());
        assertEquals("http.transport: io_uring", choice.reason());
    }

    @Test
    void aNamedTransportThatDoesNotLoadStopsTheStart() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> TransportChoice.resolve(NetworkTransport.IO_URING, NO_URING, EPOLL));
        assertEquals("http.transport: io_uring does not load here (UnsupportedOperationException: io_uring_setup: "
                + "EPERM);"
                + " set auto, or another of io_uring, epoll, nio", e.getMessage());
        assertSame(EPOLL, TransportChoice.resolve(NetworkTransport.EPOLL, NO_URING, EPOLL).transport());
        assertSame(Transport.NIO, TransportChoice.resolve(NetworkTransport.NIO, NO_URING, NO_EPOLL).transport());
    }

    @Test
    void theReadyLineNamesTheTransportAVertxRunsOn() {
        Vertx nio = Vertx.builder().withTransport(Transport.NIO).build();
        try {
            assertEquals("nio", TransportChoice.nameOf(nio));
        } finally {
            await(nio.close());
        }
        if (Transport.IO_URING.available()) {
            Vertx uring = Vertx.builder().withTransport(Transport.IO_URING).build();
            try {
                assertEquals("io_uring", TransportChoice.nameOf(uring));
            } finally {
                await(uring.close());
            }
        }
    }

    @Test
    void thisHostsChoiceLoads() {
        // Whatever this host offers, auto picks a transport that loads (the jar bundles epoll's natives).
        TransportChoice choice = TransportChoice.resolve(NetworkTransport.AUTO);
        assertTrue(choice.transport().available(), choice.reason());
        assertEquals(Transport.EPOLL.available() ? "epoll" : "nio", choice.name());
    }
}
