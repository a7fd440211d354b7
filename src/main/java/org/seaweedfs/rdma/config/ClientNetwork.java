package org.seaweedfs.rdma.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * An IP network clients may come from: {@code 10.0.0.0/8}, {@code fd00::/8}, or one address ({@code 127.0.0.1},
 * {@code ::1}: the whole prefix). Only literal addresses are accepted (nothing is resolved through DNS).
 */
public record ClientNetwork(byte[] address, int prefixBits, String text) {

    public ClientNetwork {
        address = address.clone();
    }

    /** @throws IllegalArgumentException for anything but an IPv4/IPv6 literal with an optional /prefix */
    public static ClientNetwork parse(String text) {
        String t = text.trim();
        int slash = t.indexOf('/');
        String host = slash < 0 ? t : t.substring(0, slash);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty() || !host.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':')
                || (host.indexOf(':') < 0 && !host.chars().allMatch(c -> (c >= '0' && c <= '9') || c == '.'))) {
            throw new IllegalArgumentException("'" + text + "' is not an IP address or network (a.b.c.d[/n], v6[/n])");
        }
        byte[] bytes;
        try {
            bytes = InetAddress.getByName(host).getAddress(); // a literal: no lookup
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + text + "' is not an IP address: " + e.getMessage());
        }
        int bits = bytes.length * 8;
        if (slash >= 0) {
            String p = t.substring(slash + 1);
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')
                    || Integer.parseInt(p) > bits) {
                throw new IllegalArgumentException("'" + text + "': the prefix must be 0.." + bits);
            }
            bits = Integer.parseInt(p);
        }
        return new ClientNetwork(bytes, bits, t);
    }

    /** Whether {@code client} (an IPv4-mapped IPv6 address counts as its IPv4 address) is in this network. */
    public boolean contains(InetAddress client) {
        byte[] b = client.getAddress();
        if (b.length == 16 && address.length == 4 && isV4Mapped(b)) {
            b = Arrays.copyOfRange(b, 12, 16);
        }
        if (b.length != address.length) {
            return false;
        }
        int full = prefixBits / 8;
        for (int i = 0; i < full; i++) {
            if (b[i] != address[i]) {
                return false;
            }
        }
        int rest = prefixBits % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xFF << (8 - rest)) & 0xFF;
        return (b[full] & mask) == (address[full] & mask);
    }

    private static boolean isV4Mapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return b[10] == (byte) 0xFF && b[11] == (byte) 0xFF;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClientNetwork n && n.prefixBits == prefixBits && Arrays.equals(n.address, address);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(address) + prefixBits;
    }

    @Override
    public String toString() {
        return text;
    }
}
