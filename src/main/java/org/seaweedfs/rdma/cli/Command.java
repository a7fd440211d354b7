package org.seaweedfs.rdma.cli;

import java.io.PrintStream;
import java.util.List;

/** A subcommand of the jar. Commands that start servers return 0 and leave their threads running. */
public interface Command {

    /** The word that selects it: {@code java -jar ... <name>}. */
    String name();

    /** One line for the usage text: arguments, then what it does. */
    String usage();

    /** Runs with the arguments after the name; returns the process exit status (2 for usage errors). */
    int run(List<String> args, PrintStream out, PrintStream err) throws Exception;
}
