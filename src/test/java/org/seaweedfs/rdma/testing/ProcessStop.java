package org.seaweedfs.rdma.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * SIGSTOP and SIGCONT for a test's child process. A stop returns once every thread of the process is stopped: the
 * signal is delivered asynchronously, and a thread still running (a UCX thread polling on another core) could
 * otherwise answer what the test sends right after.
 */
public final class ProcessStop {

    private ProcessStop() {
    }

    /** SIGSTOP (true: the process hangs, its sockets open) or SIGCONT (false: it runs on). */
    public static void signal(long pid, boolean stop) {
        try {
            Process kill = new ProcessBuilder("kill", stop ? "-STOP" : "-CONT", Long.toString(pid)).inheritIO()
                    .start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill " + (stop ? "-STOP " : "-CONT ") + pid + " failed");
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (stop && !everyThreadStopped(pid)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("process " + pid + " did not stop within 30 s of SIGSTOP");
                }
                Thread.sleep(1);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Whether every thread of the process is in state T (stopped), from /proc. */
    private static boolean everyThreadStopped(long pid) throws IOException {
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException gone) {
                    continue; // a thread that ended meanwhile
                }
                // "tid (comm) S ...": the state follows the last ')' (a thread's name may hold one)
                char state = stat.charAt(stat.lastIndexOf(')') + 2);
                if (state != 'T' && state != 't') {
                    return false;
                }
            }
        }
        return true;
    }
}
