package org.seaweedfs.rdma.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.config.ConfigException;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;
import picocli.CommandLine.Command;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/** {@code serve --conf <file.yaml>}: runs the roles the file enables until the process is stopped. */
@Command(name = "serve", description = "Run the roles (agent, sidecar) the configuration file enables, until stopped. "
        + "SEAWEEDFS_RDMA_* environment variables override the file's keys.")
final class ServeCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);

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
        List<String> jvmOptions = HeapBound.option(config,
                ManagementFactory.getRuntimeMXBean().getInputArguments(), System.getenv()).stream().toList();
        if (!jvmOptions.isEmpty()) {
            LOG.info("Heap bounded to {} MiB (sidecar.maxHeap, agent.maxHeap; an -Xmx of your own wins): relaunching"
                    + " with {}", HeapBound.bound(config) >> 20, jvmOptions);
        }
        int relaunched = UcxEnvironment.relaunchIfNeeded(Main.originalArgs(), jvmOptions);
        if (relaunched >= 0) {
            return relaunched;
        }
        SeaweedRdma server = ServerLauncher.start(config, err);
        out.println(ServerLauncher.readyLine(server));
        out.flush();
        return 0;
    }
}
