package org.seaweedfs.rdma.cli;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/** Reports how far a long scan has come on stderr, at most every few seconds (short scans print nothing). */
final class Progress {

    private static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(3);

    private final PrintStream err;
    private final long total;
    private long done;
    private long lastReport = System.nanoTime();

    Progress(PrintStream err, long total) {
        this.err = err;
        this.total = total;
    }

    /** Counts {@code bytes} more as scanned. */
    void advance(long bytes) {
        done += bytes;
        if (due()) {
            err.printf("inspect: scanned %d of %d MiB (%d%%)%n", done >> 20, total >> 20, total == 0 ? 100 : done * 100
                    / total);
        }
    }

    /** Reports the position reached by a separate pass over one file (e.g. a header walk). */
    void at(String phase, long position, long of) {
        if (due()) {
            err.printf("inspect: %s %d of %d MiB%n", phase, position >> 20, of >> 20);
        }
    }

    private boolean due() {
        long now = System.nanoTime();
        if (now - lastReport < EVERY_NANOS) {
            return false;
        }
        lastReport = now;
        return true;
    }
}
