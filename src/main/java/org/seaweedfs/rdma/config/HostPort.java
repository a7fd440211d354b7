package org.seaweedfs.rdma.config;

/**
 * A {@code host:port} address ({@code [v6-address]:port} for IPv6 literals). Port 0 only makes sense for an
 * address to listen on (any free port), so only {@link #parseListen} accepts it.
 */
public record HostPort(String host, int port) {

    public HostPort {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host is empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 0..65535");
        }
    }

    /** Parses {@code host:port} of a peer (port 1..65535); the message says what is wrong, for configuration errors. */
    public static HostPort parse(String text) {
        return parse(text, 1);
    }

    /** Parses an address to listen on: as {@link #parse}, and port 0 means any free port. */
    public static HostPort parseListen(String text) {
        return parse(text, 0);
    }

    private static HostPort parse(String text, int minPort) {
        String t = text == null ? "" : text.trim();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            throw new IllegalArgumentException("'" + t + "' is not host:port");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.indexOf(':') >= 0) {
            throw new IllegalArgumentException("'" + t + "': write IPv6 addresses as [address]:port");
        }
        String port = t.substring(colon + 1);
        if (!port.chars().allMatch(Character::isDigit) || port.length() > 5) {
            throw new IllegalArgumentException("'" + t + "': port '" + port + "' is not a number");
        }
        int number = Integer.parseInt(port);
        if (number < minPort || number > 65535) {
            throw new IllegalArgumentException("'" + t + "': port " + number + " is outside " + minPort + "..65535");
        }
        try {
            return new HostPort(host, number);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + t + "': " + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
