package org.seaweedfs.rdma.cli;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.seaweedfs.rdma.BuildInfo;
import org.seaweedfs.rdma.config.LoggingConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.ScopeType;

/**
 * Entry point of the jar: {@code java -jar seaweedfs-rdma-sidecar.jar <command> [args]}. Every command answers
 * {@code --help} and {@code --version}; a usage error prints what is wrong and the usage, and exits 2.
 */
@Command(name = "seaweedfs-rdma-sidecar", scope = ScopeType.INHERIT, mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class, synopsisSubcommandLabel = "<command>", usageHelpAutoWidth = true,
        description = {"RDMA read path for SeaweedFS: a sidecar serving needles over HTTP and the event bus, read over "
                + "UCX from an agent beside the volume server.", "Run '<command> --help' for a command's options."})
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        Logging.configure(LoggingConfig.defaults());
        PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
                false, StandardCharsets.UTF_8);
        int status = run(args, out, System.err);
        out.flush();
        if (status != 0) {
            System.exit(status);
        }
    }

    /** Parses {@code args} and runs the command they name; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        Path conf = serveConf(args);
        if (conf != null) {
            try {
                return new ServeCommand(out, err).serve(conf);
            } catch (Exception e) {
                err.println(failure("serve", e));
                return 1;
            } finally {
                out.flush();
            }
        }
        CommandLine cli = commandLine(out, err);
        try {
            return cli.execute(args);
        } finally {
            cli.getOut().flush();
            cli.getErr().flush();
            out.flush();
        }
    }

    /**
     * The file of {@code serve --conf <file>} (or {@code --conf=<file>}), the command line every launcher gives, or
     * null for any other. That one runs without the command tree: picocli builds its model of five commands by
     * reflection, from classes that class-data sharing cannot archive (Java 5 bytecode), a tenth of a start.
     */
    static Path serveConf(String[] args) {
        if (args.length == 3 && args[0].equals("serve") && args[1].equals("--conf") && !args[2].startsWith("-")) {
            return Path.of(args[2]);
        }
        if (args.length == 2 && args[0].equals("serve") && args[1].startsWith("--conf=")
                && args[1].length() > "--conf=".length()) {
            return Path.of(args[1].substring("--conf=".length()));
        }
        return null;
    }

    /** What a command that failed with {@code e} prints. */
    private static String failure(String command, Exception e) {
        return command + ": " + e;
    }

    /** The command tree writing to {@code out} (results, help) and {@code err} (diagnostics). */
    static CommandLine commandLine(PrintStream out, PrintStream err) {
        CommandLine cli = new CommandLine(new Main())
                .addSubcommand(new HelpCommand())
                .addSubcommand(new ServeCommand(out, err))
                .addSubcommand(new DemoCommand(out, err))
                .addSubcommand(new InspectCommand(out, err))
                .addSubcommand(new GenVolumeCommand(out, err));
        cli.setOut(new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true));
        cli.setErr(new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true));
        cli.setExecutionExceptionHandler((e, command, parsed) -> {
            command.getErr().println(failure(command.getCommandName(), e));
            return 1;
        });
        return cli;
    }

    /** {@code --version}: the version the build stamped. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"seaweedfs-rdma-sidecar " + BuildInfo.version(),
                    "Java " + Runtime.version() + " (" + System.getProperty("java.vendor", "?") + ")"};
        }
    }
}
