package org.seaweedfs.rdma.ucx;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's host as peers compare it: the kernel's boot id and the network namespace. Two processes with the
 * same identity run on one kernel and see one another as local, so a file one of them names can be the other's to
 * map. Network namespaces count as hosts apart (as in a cluster of namespaces, or containers with networks of their
 * own), so only peers that share the network share files this way.
 */
public final class SameHost {

    private static final String ID = read();

    private SameHost() {
    }

    /** This host's identity, or null where the system does not tell it (not Linux, no /proc). */
    public static String id() {
        return ID;
    }

    private static String read() {
        try {
            String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
            String net = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
            return boot.isEmpty() ? null : boot + "/" + net;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }
}
