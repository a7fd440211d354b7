package org.seaweedfs.rdma.ucx;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps UCX from printing "UCP API version is incompatible: required >= 1.15, actual 1.13.1" at every UCX context:
 * JUCX 1.15 asks for UCX 1.15's API, Debian 12 has 1.13.1, and the project stays on JUCX 1.15 on purpose (older
 * releases leak a JNI global reference per immediately completed request; docs/protocol.md, "UCX versions"). A UCX log
 * handler from {@code src/main/c/ucx_log_filter.c} stops that one message and passes every other one on;
 * {@link UcxLibrary} logs the versions in use once instead. Without the library (a build made with
 * {@code -Dsigbusguard.skip=true}) UCX prints it as before. The handler lives in {@link UcxNativeLibrary}.
 */
final class UcxLogFilter {

    private static final Logger log = LoggerFactory.getLogger(UcxLogFilter.class);
    private static final Object LOCK = new Object();
    private static boolean tried;
    private static boolean active;

    private UcxLogFilter() {
    }

    /** Installs the handler once per process, before the first UCX context; whether it is in place. */
    static boolean install() {
        synchronized (LOCK) {
            if (!tried) {
                tried = true;
                active = load();
            }
            return active;
        }
    }

    /** Messages the handler stopped so far (0 when it is not installed). */
    static long dropped() {
        return install() ? dropped0() : 0;
    }

    private static boolean load() {
        String absence = UcxNativeLibrary.absence();
        UcxEnvironment.loadUcx(); // JUCX's own library, and with it the libucs the handler goes into
        if (absence != null) {
            log.info("No UCX log filter: " + absence + ". UCX prints 'UCP API version is incompatible' at each"
                    + " context where its version is older than JUCX's");
            return false;
        }
        if (install0()) {
            return true;
        }
        log.info("UCX log filter not installed: libucs.so.0 or its ucs_log_push_handler was not found");
        return false;
    }

    private static native boolean install0();

    private static native long dropped0();
}
