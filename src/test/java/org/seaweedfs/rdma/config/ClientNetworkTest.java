package org.seaweedfs.rdma.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class ClientNetworkTest {

    private static boolean in(String network, String address) throws Exception {
        return ClientNetwork.parse(network).contains(InetAddress.getByName(address));
    }

    @Test
    void networksAndSingleAddresses() throws Exception {
        assertTrue(in("127.0.0.0/8", "127.1.2.3"));
        assertFalse(in("127.0.0.0/8", "128.0.0.1"));
        assertTrue(in("10.1.2.3", "10.1.2.3"));
        assertFalse(in("10.1.2.3", "10.1.2.4"));
        assertTrue(in("192.168.4.0/22", "192.168.7.255"));
        assertFalse(in("192.168.4.0/22", "192.168.8.0"));
        assertTrue(in("0.0.0.0/0", "8.8.8.8"));
        assertTrue(in("::1", "::1"));
        assertFalse(in("::1", "127.0.0.1"));
        assertTrue(in("fd00::/8", "fd12::5"));
        assertTrue(in("127.0.0.0/8", "::ffff:127.0.0.1"), "an IPv4-mapped client counts as its IPv4 address");
    }

    @Test
    void onlyLiteralsWithValidPrefixes() {
        for (String bad
                : new String[]{"localhost", "example.com", "10.0.0.0/33", "::1/129", "10.0.0.0/", "10.0.0.0/x", ""}) {
            assertThrows(IllegalArgumentException.class, () -> ClientNetwork.parse(bad), bad);
        }
    }

    @Test
    void theReadSliceKeysParseFromYamlAndTheEnvironment() {
        RdmaConfig defaults = ConfigLoader.parse("http: {port: 9000}", "test.yaml", java.util.Map.of());
        assertTrue(defaults.http().readSliceClients().equals(HttpConfig.DEFAULT_READ_SLICE_CLIENTS));
        assertFalse(defaults.http().readSliceFallback());
        RdmaConfig c = ConfigLoader.parse("http: {readSliceClients: [10.1.0.0/16]}", "test.yaml", java.util.Map.of(
                "SEAWEEDFS_RDMA_HTTP_READ_SLICE_FALLBACK", "true"));
        assertTrue(c.http().readSliceFallback());
        assertTrue(c.http().readSliceClients().equals(java.util.List.of(ClientNetwork.parse("10.1.0.0/16"))));
        RdmaConfig env = ConfigLoader.parse("", "test.yaml", java.util.Map.of(
                "SEAWEEDFS_RDMA_HTTP_READ_SLICE_CLIENTS", "10.0.0.0/8, ::1"));
        assertTrue(env.http().readSliceClients().size() == 2);
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(
                "http: {readSliceClients: [mount-host]}", "test.yaml", java.util.Map.of()));
        assertTrue(e.problems().get(0).startsWith("http.readSliceClients"), e.problems().toString());
    }
}
