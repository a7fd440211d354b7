package org.seaweedfs.rdma.cli;

import java.lang.management.ManagementFactory;

/** The main class of the jar {@code LauncherTest} starts through {@code bin/seaweedfs-rdma}: what the JVM was given. */
public final class LaunchProbe {

    private LaunchProbe() {
    }

    public static void main(String[] args) {
        System.out.println("pid=" + ProcessHandle.current().pid());
        System.out.println("args=" + String.join(" ", args));
        System.out.println("jvm=" + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
    }
}
