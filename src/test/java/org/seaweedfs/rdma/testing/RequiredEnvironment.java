package org.seaweedfs.rdma.testing;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What some tests need from the machine (root and network namespaces, a browser, io_uring, unshare). Without it they
 * skip, saying what is missing; named in the system property {@value #PROPERTY} (comma-separated, e.g. CI's
 * {@code -Dseaweedfs.test.require=netns,chromium,unshare,io_uring}) a missing one fails the test instead, so a
 * machine that lacks it cannot pass with those tests unrun.
 */
public final class RequiredEnvironment {

    public static final String PROPERTY = "seaweedfs.test.require";

    /** Hosts as network namespaces: root, iproute2's {@code ip}, nftables' {@code nft}, a working netns add. */
    public static final String NETNS = "netns";
    /** Headless Chromium for the status page. */
    public static final String CHROMIUM = "chromium";
    /** User and network namespaces through util-linux's {@code unshare -rn}. */
    public static final String UNSHARE = "unshare";
    /** Vert.x's io_uring transport loads (kernel and native library). */
    public static final String IO_URING = "io_uring";

    private static final Set<String> KNOWN = Set.of(NETNS, CHROMIUM, UNSHARE, IO_URING);

    private RequiredEnvironment() {
    }

    /**
     * Skips the test when {@code present} is false (a failure when {@code name} is required), with {@code missing}
     * saying what is missing.
     */
    public static void assume(String name, boolean present, Supplier<String> missing) {
        Set<String> required = required();
        if (!KNOWN.contains(name)) {
            throw new IllegalArgumentException("unknown environment " + name);
        }
        if (present) {
            return;
        }
        if (required.contains(name)) {
            Assertions.fail(name + " is required (-D" + PROPERTY + "=" + String.join(",", required) + ") but missing: "
                    + missing.get());
        }
        Assumptions.abort(name + " missing, skipped (-D" + PROPERTY + "=" + name + " makes it a failure): "
                + missing.get());
    }

    /** The names in {@value #PROPERTY}; an unknown one fails, so that a typo does not quietly require nothing. */
    static Set<String> required() {
        String value = System.getProperty(PROPERTY, "").strip();
        Set<String> names = new TreeSet<>();
        List<String> parts = value.isEmpty() ? List.of() : Arrays.asList(value.split("\\s*,\\s*"));
        for (String part : parts) {
            if (!KNOWN.contains(part)) {
                Assertions.fail(PROPERTY + " names " + part + "; known: " + new TreeSet<>(KNOWN));
            }
            names.add(part);
        }
        return names;
    }
}
