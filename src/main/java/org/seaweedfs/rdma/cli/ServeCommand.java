package org.seaweedfs.rdma.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.config.ConfigException;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;
import org.seaweedfs.rdma.config.Role;
import org.seaweedfs.rdma.config.SidecarConfig;
import org.seaweedfs.rdma.ucx.UcxEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code serve --conf <file.yaml>}: runs the roles the file enables, in this JVM, until the process is stopped. The
 * JVM's options (heap, GC) are the operator's: {@code JAVA_OPTS} in the image and the scripts.
 */
@Command(name = "serve", description = "Run the roles (agent, sidecar) the configuration file enables, until stopped. "
        + "SEAWEEDFS_RDMA_* environment variables override the file's keys.")
final class ServeCommand implements Callable<Integer> {

    private final PrintStream out;
    private final PrintStream err;

    @Option(names = "--conf", required = true, paramLabel = "<file.yaml>",
            description = "the configuration file (every key: conf/config.yaml)")
    Path conf;

    ServeCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() throws Exception {
        return serve(conf);
    }

    /** Loads {@code file}, then starts the roles; returns 0 with the server running, 2 when the file is wrong. */
    int serve(Path file) throws Exception {
        RdmaConfig config;
        try {
            config = ConfigLoader.parse(Files.readString(file), file.toString(), System.getenv());
        } catch (NoSuchFileException e) {
            err.println("serve: no such configuration file: " + file);
            return 2;
        } catch (IOException e) {
            err.println("serve: cannot read " + file + ": " + e.getMessage());
            return 2;
        } catch (ConfigException e) {
            err.println("serve: " + e.getMessage());
            return 2;
        }
        Logging.configure(config.logging());
        String heap = heapProblem(config, Runtime.getRuntime().maxMemory());
        if (heap != null) {
            err.println("serve: " + heap);
            return 2;
        }
        UcxEnvironment.loadUcx(); // UCX's early variables must be in the environment before anything loads UCX
        SeaweedRdma server = ServerLauncher.start(config, err);
        out.println(ServerLauncher.readyLine(server));
        out.flush();
        return 0;
    }

    /**
     * Why this JVM's heap cannot hold what the configuration asks of it, or null: the heap is the operator's
     * ({@code JAVA_OPTS=-Xmx...}), and a sidecar's location cache lives on it.
     */
    static String heapProblem(RdmaConfig config, long maxHeapBytes) {
        long needed = config.sidecar().locationCacheMaxBytes() + SidecarConfig.WORKING_HEAP_BYTES;
        if (!config.runs(Role.SIDECAR) || maxHeapBytes >= needed) {
            return null;
        }
        return "sidecar.locationCache.maxBytes (" + (config.sidecar().locationCacheMaxBytes() >> 20) + " MiB) needs a "
                + "heap of at least " + (needed >> 20) + " MiB, and this JVM's is " + (maxHeapBytes >> 20) + " MiB: "
                + "give the JVM more (JAVA_OPTS=-Xmx" + (needed >> 20) + "m) or the cache less";
    }
}
