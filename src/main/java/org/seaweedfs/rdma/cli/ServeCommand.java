package org.seaweedfs.rdma.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.seaweedfs.rdma.SeaweedRdma;
import org.seaweedfs.rdma.config.ConfigException;
import org.seaweedfs.rdma.config.ConfigLoader;
import org.seaweedfs.rdma.config.RdmaConfig;

/** {@code serve --conf <file.yaml>}: runs the roles the file enables until the process is stopped. */
final class ServeCommand implements Command {

    @Override
    public String name() {
        return "serve";
    }

    @Override
    public String usage() {
        return "--conf <file.yaml>   run the roles (agent, sidecar) the file enables; SEAWEEDFS_RDMA_* env overrides";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        if (args.size() != 2 || !args.get(0).equals("--conf")) {
            return Main.usageError(err, name(), "expected --conf <file.yaml>");
        }
        Path file = Path.of(args.get(1));
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
        int relaunched = UcxEnvironment.relaunchIfNeeded(Main.originalArgs());
        if (relaunched >= 0) {
            return relaunched;
        }
        SeaweedRdma server = ServerLauncher.start(config, err);
        out.println(ServerLauncher.readyLine(server));
        out.flush();
        return 0;
    }
}
