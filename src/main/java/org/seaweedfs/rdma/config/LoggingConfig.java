package org.seaweedfs.rdma.config;

/**
 * How the command line's log backend writes (the library itself only logs through SLF4J).
 *
 * @param level  root level: trace, debug, info, warn, error or off
 * @param format text (one line per record) or json (one JSON object per line, for a log pipeline)
 */
public record LoggingConfig(String level, String format) {

    /** Before any configuration file is read. */
    public static LoggingConfig defaults() {
        return new LoggingConfig("info", "text");
    }
}
