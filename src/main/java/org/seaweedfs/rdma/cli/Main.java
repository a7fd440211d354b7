package org.seaweedfs.rdma.cli;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** Entry point of the jar: {@code java -jar seaweedfs-rdma-sidecar.jar <command> [args]}. */
public final class Main {

    /** Every command; adding one is adding it here. */
    static final List<Command> COMMANDS = List.of(
            new InspectCommand(),
            new GenVolumeCommand(),
            new ServeCommand(),
            new DemoCommand());

    private static volatile String[] originalArgs = new String[0];

    private Main() {
    }

    public static void main(String[] args) {
        originalArgs = args.clone();
        configureLogging();
        PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
                false, StandardCharsets.UTF_8);
        int status = run(args, out, System.err);
        out.flush();
        if (status != 0) {
            System.exit(status);
        }
    }

    /** Dispatches to the command named by {@code args[0]}; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || List.of("-h", "--help", "help").contains(args[0])) {
            (args.length == 0 ? err : out).print(usage());
            return args.length == 0 ? 2 : 0;
        }
        Optional<Command> command = COMMANDS.stream().filter(c -> c.name().equals(args[0])).findFirst();
        if (command.isEmpty()) {
            err.print("unknown command '" + args[0] + "'\n" + usage());
            return 2;
        }
        try {
            return command.get().run(Arrays.asList(args).subList(1, args.length), out, err);
        } catch (Exception e) {
            err.println(args[0] + ": " + e);
            return 1;
        }
    }

    /** One line per log record (src/main/resources/logging.properties) unless the operator names a config. */
    private static void configureLogging() {
        if (System.getProperty("java.util.logging.config.file") != null) {
            return;
        }
        try (java.io.InputStream in = Main.class.getResourceAsStream("/logging.properties")) {
            if (in != null) {
                java.util.logging.LogManager.getLogManager().readConfiguration(in);
            }
        } catch (java.io.IOException e) {
            System.err.println("logging configuration not loaded: " + e.getMessage());
        }
    }

    /** The command line as given, for commands that relaunch the JVM. */
    static String[] originalArgs() {
        return originalArgs.clone();
    }

    /** Prints a usage error for {@code command} and returns exit status 2. */
    static int usageError(PrintStream err, String command, String problem) {
        err.println(command + ": " + problem);
        err.print(usage());
        return 2;
    }

    static String usage() {
        StringBuilder text = new StringBuilder("usage: java -jar seaweedfs-rdma-sidecar.jar <command> [arguments]\ncommands:\n");
        for (Command c : COMMANDS) {
            text.append("  ").append(c.name()).append(' ').append(c.usage()).append('\n');
        }
        return text.toString();
    }
}
