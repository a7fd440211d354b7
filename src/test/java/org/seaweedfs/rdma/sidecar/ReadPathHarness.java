package org.seaweedfs.rdma.sidecar;

import org.seaweedfs.rdma.sidecar.connection.AgentConnection;
import org.seaweedfs.rdma.sidecar.connection.AgentRouter;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.seaweedfs.rdma.agent.AgentSettings;
import org.seaweedfs.rdma.agent.AgentVerticle;
import org.seaweedfs.rdma.ucx.UcxSettings;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;

/**
 * A real agent and a real sidecar read path over UCX loopback, each in its own Vert.x instance (and UCX worker),
 * for the tests and the latency main.
 */
public final class ReadPathHarness {

    private ReadPathHarness() {
    }

    public static <T> T await(Future<T> future) {
        return await(future, 60);
    }

    /** Waits for a long run (a shared, loaded machine can be slow; the tests never assert timings). */
    public static <T> T await(Future<T> future, long seconds) {
        try {
            return future.toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new RuntimeException(e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new IllegalStateException("timed out waiting for " + future, e);
        }
    }

    public static UcxSettings ucxSettings(String tls) {
        return UcxSettings.defaults().withTls(tls).withProbeTransports(false);
    }

    /** The agent role serving {@code dir}. */
    public static final class AgentSide implements AutoCloseable {
        public final Vertx vertx = Vertx.vertx();
        public final UcxWorkerVerticle ucx;
        public final AgentVerticle agent;

        public AgentSide(Path dir, String tls, UnaryOperator<AgentSettings> tweak) {
            ucx = new UcxWorkerVerticle(ucxSettings(tls));
            await(vertx.deployVerticle(ucx));
            AgentSettings settings = tweak.apply(AgentSettings.of("127.0.0.1", 0, List.of(dir))
                    .withPollInterval(Duration.ofMillis(50)));
            agent = new AgentVerticle(ucx, settings);
            await(vertx.deployVerticle(agent, new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER)));
        }

        public int port() {
            return agent.port();
        }

        @Override
        public void close() {
            await(vertx.close());
        }
    }

    /** The sidecar side: its own worker and a registered pool; connections are made per test. */
    public static final class SidecarSide implements AutoCloseable {
        public final Vertx vertx = Vertx.vertx();
        public final UcxWorkerVerticle ucx;
        public final RegisteredBufferPool pool;

        public SidecarSide(String tls, RegisteredBufferPool.Settings poolSettings) {
            ucx = new UcxWorkerVerticle(ucxSettings(tls));
            await(vertx.deployVerticle(ucx));
            pool = new RegisteredBufferPool(poolSettings);
            await(pool.register(ucx));
        }

        public AgentConnection connect(int port, String token) {
            return await(AgentConnection.connect(vertx, ucx, AgentConnection.Options.of("127.0.0.1", port, "test-sidecar", token)));
        }

        public NeedleReader reader(AgentRouter router, ReadPathOptions options) {
            return new NeedleReader(vertx, router, pool, options);
        }

        @Override
        public void close() {
            await(pool.deregister());
            await(vertx.close());
        }
    }
}
