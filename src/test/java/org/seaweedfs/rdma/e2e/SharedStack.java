package org.seaweedfs.rdma.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.seaweedfs.rdma.volume.Fixtures;

/**
 * An agent serving a copy of the fixture volumes and a sidecar connected to it, each in its own Vert.x, started
 * once for every test class that only reads (the HTTP and event-bus classes) and stopped when the run ends.
 * Classes that stop agents or change files start their own.
 */
final class SharedStack implements BeforeAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedStack.class);

    private static volatile Running current;

    /** The running pair; only inside a class extended with this. */
    static Running get() {
        return current;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        current = context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Running.class, k -> Running.start(),
                Running.class);
    }

    static final class Running implements ExtensionContext.Store.CloseableResource {
        final Path volumes;
        final Stack agent;
        final Stack sidecar;

        private Running(Path volumes, Stack agent, Stack sidecar) {
            this.volumes = volumes;
            this.agent = agent;
            this.sidecar = sidecar;
        }

        static Running start() {
            Path dir;
            try {
                dir = Files.createTempDirectory("seaweedfs-rdma-e2e-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Fixtures.copyDir("volumes", dir);
            Stack agent = Stack.agent(dir, 0);
            try {
                return new Running(dir, agent, Stack.sidecar(agent.agentPort(), ""));
            } catch (RuntimeException | AssertionError e) {
                agent.close();
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            try {
                sidecar.close();
            } finally {
                agent.close();
                try (Stream<Path> files = Files.walk(volumes)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }
}
