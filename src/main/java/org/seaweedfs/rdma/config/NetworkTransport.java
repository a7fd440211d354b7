package org.seaweedfs.rdma.config;

import java.util.Arrays;
import java.util.Locale;

/**
 * {@code http.transport}: how {@code serve}'s sockets (the HTTP face, its HTTP clients, a clustered event bus) do
 * their I/O. {@link #AUTO} is epoll where it loads, else NIO; io_uring only when named (why: {@code TransportChoice}).
 */
public enum NetworkTransport {
    AUTO, IO_URING, EPOLL, NIO;

    /** The spellings the configuration accepts: each constant's {@link #configName()}. */
    static final String[] CHOICES = Arrays.stream(values()).map(NetworkTransport::configName).toArray(String[]::new);

    /** The configuration's spelling. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** From the configuration's spelling (already checked against {@link #CHOICES} by the schema). */
    public static NetworkTransport parse(String value) {
        return valueOf(value.strip().toUpperCase(Locale.ROOT));
    }
}
