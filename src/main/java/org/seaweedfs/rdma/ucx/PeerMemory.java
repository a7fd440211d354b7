package org.seaweedfs.rdma.ucx;

import org.openucx.jucx.ucp.UcpRemoteKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets from a same-host peer's shared memory by one copy ({@code src/main/c/ucx_peer_memory.c}): unpacking a key of
 * memory UCX allocated in a peer on this host (its posix or sysv transport) maps that memory here, and
 * {@code ucp_rkey_ptr} says where. Copying from there is what UCX's own shared-memory get does, without the request
 * object, the JNI callback and the worker progress JUCX spends on each get: the peer's CPU takes no part either way.
 * Memory UCX has not mapped here (another host, a peer's file mapping) is not copied; the caller issues a get.
 * Readers that can use the bytes where they lie take the {@link #address} instead, and copy nothing.
 *
 * <p>Only on the thread that owns the key's worker, between unpacking and closing the key: closing it detaches the
 * memory.
 */
final class PeerMemory {

    private static final Logger log = LoggerFactory.getLogger(PeerMemory.class);
    private static final boolean AVAILABLE = resolve();

    private PeerMemory() {
    }

    /**
     * Copies {@code length} bytes at the peer's {@code remoteAddress} under {@code key} to {@code localAddress};
     * false, having copied nothing, when that memory is not mapped in this process.
     */
    static boolean copy(UcpRemoteKey key, long remoteAddress, long localAddress, long length) {
        return AVAILABLE && copy0(key.getNativeId(), remoteAddress, localAddress, length);
    }

    /** Where the peer's {@code remoteAddress} under {@code key} lies in this process; 0 when it is not mapped here. */
    static long address(UcpRemoteKey key, long remoteAddress) {
        return AVAILABLE ? address0(key.getNativeId(), remoteAddress) : 0;
    }

    private static boolean resolve() {
        String absence = UcxNativeLibrary.absence();
        if (absence != null) {
            log.info("Gets from same-host shared memory go through UCX requests: " + absence);
            return false;
        }
        UcxEnvironment.loadUcx();
        if (resolve0()) {
            return true;
        }
        log.info("Gets from same-host shared memory go through UCX requests: ucp_rkey_ptr was not found in libucp");
        return false;
    }

    private static native boolean resolve0();

    private static native boolean copy0(long key, long remoteAddress, long localAddress, long length);

    private static native long address0(long key, long remoteAddress);
}
