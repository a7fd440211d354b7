package org.seaweedfs.rdma.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a .dat truncated (or unreadable) under the agent's read-only mappings from killing the JVM: the native
 * library built from src/main/c/sigbus_guard.c installs a SIGBUS handler that, for a fault inside a registered
 * mapping, puts an anonymous zero page in place of the lost one and counts the event; any other SIGBUS goes to the
 * JVM's own handler. Without the library (no gcc at build time, another OS) the agent serves as before and says so.
 */
final class SigbusGuard {

    private static final Logger log = LoggerFactory.getLogger(SigbusGuard.class);
    private static final String RESOURCE = "/native/libsigbusguard.so";
    private static final boolean ACTIVE = load();
    private static final Map<Long, Integer> SLOTS = new HashMap<>();

    private SigbusGuard() {
    }

    private static boolean load() {
        try (InputStream in = SigbusGuard.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                log.warn("No SIGBUS guard in this build (" + RESOURCE + " missing: install gcc and rebuild): a .dat"
                        + " truncated while it is served mapped can crash the agent");
                return false;
            }
            Path copy = Files.createTempFile("sigbusguard", ".so");
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
            copy.toFile().deleteOnExit();
            System.load(copy.toAbsolutePath().toString());
            if (!install0()) {
                log.warn("The SIGBUS guard could not install its handler: a .dat truncated while served mapped can"
                        + " crash the agent");
                return false;
            }
            return true;
        } catch (IOException | LinkageError e) {
            log.warn("The SIGBUS guard could not be loaded (" + e + "): a .dat truncated while it is served mapped can"
                    + " crash the agent");
            return false;
        }
    }

    static boolean active() {
        return ACTIVE;
    }

    /** Guards the mapped range [address, address + length) until {@link #unregister}. */
    static synchronized void register(long address, long length) {
        if (!ACTIVE || SLOTS.containsKey(address)) {
            return;
        }
        int slot = register0(address, length);
        if (slot < 0) {
            log.warn("SIGBUS guard table full: the mapping at 0x" + Long.toHexString(address) + " is not guarded");
            return;
        }
        SLOTS.put(address, slot);
    }

    static synchronized void unregister(long address) {
        Integer slot = SLOTS.remove(address);
        if (slot != null) {
            unregister0(slot);
        }
    }

    /** Whether a page of the mapping at {@code address} was replaced by a zero page since the last call. */
    static synchronized boolean takeFaulted(long address) {
        Integer slot = SLOTS.get(address);
        return slot != null && takeFaulted0(slot);
    }

    /** Pages of guarded mappings replaced by zero pages since start. */
    static long faults() {
        return ACTIVE ? faults0() : 0;
    }

    private static native boolean install0();

    private static native int register0(long address, long length);

    private static native void unregister0(int slot);

    private static native boolean takeFaulted0(int slot);

    private static native long faults0();
}
