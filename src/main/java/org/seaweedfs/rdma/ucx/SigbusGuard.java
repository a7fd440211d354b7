package org.seaweedfs.rdma.ucx;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a volume file truncated (or unreadable) under a read-only mapping from killing the JVM: the native library
 * built from src/main/c/sigbus_guard.c installs a SIGBUS handler that, for a fault inside a registered mapping, puts
 * an anonymous zero page in place of the lost one and counts the event; any other SIGBUS goes to the JVM's own
 * handler. The agent registers its volume mappings; a same-host sidecar maps the agent's files through
 * {@link #mapFile}, guarded from the start. The build fails without gcc unless told to skip the guard; without the
 * library (skipped, another OS) the agent serves as before and warns at start, and sidecars read through UCX gets.
 */
public final class SigbusGuard {

    private static final Logger log = LoggerFactory.getLogger(SigbusGuard.class);
    private static final String RESOURCE = "/native/libsigbusguard.so";
    /** Why the guard is not active, or null when it is. */
    private static final String ABSENCE = load();
    private static final boolean ACTIVE = ABSENCE == null;
    private static final Map<Long, Integer> SLOTS = new HashMap<>();

    private SigbusGuard() {
    }

    private static String load() {
        try (InputStream in = SigbusGuard.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return "this jar has no " + RESOURCE + " (built with -Dsigbusguard.skip=true)";
            }
            Path copy = Files.createTempFile("sigbusguard", ".so");
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
            copy.toFile().deleteOnExit();
            System.load(copy.toAbsolutePath().toString());
            return install0() ? null : "its SIGBUS handler could not be installed";
        } catch (IOException | LinkageError e) {
            return "its native library could not be loaded (" + e + ")";
        }
    }

    /**
     * The start-up warning when the guard is absent (what it means and what to do), or null when it is active.
     */
    public static String absenceWarning() {
        return ACTIVE ? null : "SIGBUS guard ABSENT: " + ABSENCE + ". A served .dat truncated or unreadable under"
                + " its mapping will kill this agent's JVM (SIGBUS). To have the guard, build the jar on Linux with gcc"
                + " (Debian: apt-get install -y gcc libc6-dev) and without -Dsigbusguard.skip=true";
    }

    public static boolean active() {
        return ACTIVE;
    }

    /** Guards the mapped range [address, address + length) until {@link #unregister}. */
    public static synchronized void register(long address, long length) {
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

    public static synchronized void unregister(long address) {
        Integer slot = SLOTS.remove(address);
        if (slot != null) {
            unregister0(slot);
        }
    }

    /** Whether a page of the mapping at {@code address} was replaced by a zero page since the last call. */
    public static synchronized boolean takeFaulted(long address) {
        Integer slot = SLOTS.get(address);
        return slot != null && takeFaulted0(slot);
    }

    /** Pages of guarded mappings replaced by zero pages since start. */
    public static long faults() {
        return ACTIVE ? faults0() : 0;
    }

    /**
     * Maps bytes [offset, offset + length) of the file at {@code path} read-only and guards them, when the file is
     * the one with {@code device} and {@code inode} and holds those bytes; returns the address of {@code offset}.
     *
     * @throws IOException naming why not (the guard is absent, the file cannot be opened, is another file or is
     *                     shorter); nothing is mapped then
     */
    static long mapFile(String path, long offset, long length, long device, long inode) throws IOException {
        if (!ACTIVE) {
            throw new IOException("the SIGBUS guard is absent (" + ABSENCE + ")");
        }
        int[] err = new int[1];
        long address = mapFile0(path, offset, length, device, inode, err);
        if (address > 0) {
            register(address, length);
            return address;
        }
        throw new IOException(path + ": " + switch ((int) address) {
            case -1 -> "cannot be opened here (errno " + err[0] + ")";
            case -2 -> "is not the file the agent maps (another device or inode here)";
            case -3 -> "is shorter here than byte " + (offset + length);
            default -> "mapping bytes " + offset + ".." + (offset + length) + " failed (errno " + err[0] + ")";
        });
    }

    /** A direct buffer over {@code length} bytes at {@code address}, which {@link #mapFile} mapped and still maps. */
    static ByteBuffer bytesAt(long address, int length) {
        return bytesAt0(address, length);
    }

    /** Unguards and unmaps what {@link #mapFile} mapped at {@code address}. */
    static void unmapFile(long address, long length) {
        unregister(address);
        unmapFile0(address, length);
    }

    private static native boolean install0();

    private static native long mapFile0(String path, long offset, long length, long device, long inode, int[] err);

    private static native ByteBuffer bytesAt0(long address, int length);

    private static native void unmapFile0(long address, long length);

    private static native int register0(long address, long length);

    private static native void unregister0(int slot);

    private static native boolean takeFaulted0(int slot);

    private static native long faults0();
}
