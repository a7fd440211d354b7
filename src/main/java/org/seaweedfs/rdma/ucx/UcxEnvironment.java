package org.seaweedfs.rdma.ucx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openucx.jucx.NativeLibs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The UCX settings UCX 1.13 reads only from the process environment, set in this process before UCX loads: UCX's
 * global options are read once, when libucs loads, so they cannot go on a context ({@link UcxSettings#contextConfig()}
 * holds everything else). A JVM cannot change its own environment from Java; the library's native helper
 * ({@link UcxNativeLibrary}) sets each variable the environment lacks, and leaves one the operator set. Every path that
 * loads UCX goes through {@link #loadUcx()}.
 */
public final class UcxEnvironment {

    private static final Logger log = LoggerFactory.getLogger(UcxEnvironment.class);

    /** The variables, with the values the library needs. */
    static final Map<String, String> EARLY = early();
    private static final Object LOCK = new Object();
    private static boolean prepared;

    private UcxEnvironment() {
    }

    private static Map<String, String> early() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("UCX_ERROR_SIGNALS", ""); // no UCX signal handlers fighting the JVM's
        env.put("UCX_TCP_CM_REUSEADDR", "y"); // a restarted agent rebinds its port at once, not after TIME_WAIT
        // UCX prints its warnings on stdout by default, among the program's output: stderr, beside the logs.
        env.put("UCX_LOG_FILE", "stderr");
        return env;
    }

    /**
     * Sets the early variables (once per process) and loads UCX (JUCX's native library, and with it libucs and
     * libucp). Call before anything else touches a JUCX class.
     */
    public static void loadUcx() {
        synchronized (LOCK) {
            if (!prepared) {
                prepared = true;
                setEarlyVariables();
            }
        }
        NativeLibs.load();
    }

    private static void setEarlyVariables() {
        String absence = UcxNativeLibrary.absence();
        if (absence != null) {
            log.warn("UCX environment not set by this process: " + absence + "; set " + EARLY.keySet()
                    + " before starting it (" + EARLY + ")");
            return;
        }
        EARLY.forEach((name, value) -> {
            if (!setIfAbsent0(name, value)) {
                log.warn("Could not set " + name + " for UCX");
            }
        });
    }

    /** The UCX_* variables UCX sees in this process: the environment it started with, and those set here. */
    static Map<String, String> current() {
        Map<String, String> env = new TreeMap<>();
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("UCX_")) {
                env.put(k, v);
            }
        });
        if (UcxNativeLibrary.absence() == null) {
            EARLY.keySet().forEach(name -> {
                String value = get0(name);
                if (value != null) {
                    env.put(name, value);
                }
            });
        }
        return env;
    }

    /** What the environment UCX sees lacks of the early variables, one operator-readable line each. */
    static List<String> gaps() {
        Map<String, String> env = current();
        List<String> gaps = new ArrayList<>();
        EARLY.forEach((name, value) -> {
            String actual = env.get(name);
            // an operator's own log file or port reuse is a choice; UCX signal handlers break the JVM's
            if (actual == null || (name.equals("UCX_ERROR_SIGNALS") && !actual.isEmpty())) {
                gaps.add("environment has " + (actual == null ? "no " + name : name + "=" + actual) + "; UCX needs "
                        + name + "=" + value + " and reads it only from the environment, before it loads");
            }
        });
        return gaps;
    }

    private static native boolean setIfAbsent0(String name, String value);

    private static native String get0(String name);
}
