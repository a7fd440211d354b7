package org.seaweedfs.rdma.config;

import java.util.List;

/** The configuration is unusable; every problem names its key. */
public final class ConfigException extends RuntimeException {

    private final List<String> problems;

    public ConfigException(List<String> problems) {
        super("invalid configuration:\n  " + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    /** One line per problem, each starting with the key. */
    public List<String> problems() {
        return problems;
    }
}
