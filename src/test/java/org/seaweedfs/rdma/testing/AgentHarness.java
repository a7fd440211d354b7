package org.seaweedfs.rdma.testing;

import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.UnaryOperator;
import org.seaweedfs.rdma.agent.AgentVerticle;
import org.seaweedfs.rdma.ucx.UcxSettings;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;

/**
 * The tests' agent: an {@link AgentVerticle} (as a worker, as the product deploys it) and its UCX worker, in a Vert.x
 * instance of its own, serving a directory of volumes on 127.0.0.1. Closing it closes what was handed to
 * {@link #closeWith}, then the Vert.x instance.
 */
public final class AgentHarness implements AutoCloseable {

    public final Path dir;
    public final Vertx vertx = Vertx.vertx();
    public final UcxWorkerVerticle ucx;
    public final AgentVerticle agent;
    public final String deployment;
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    /** Serves {@code dir} with the transports in {@code tls}, set up as {@code setup} says. */
    public AgentHarness(Path dir, String tls, AgentSetup setup) {
        this(dir, ucx(tls), setup);
    }

    public AgentHarness(Path dir, UcxSettings ucxSettings, AgentSetup setup) {
        this(dir, ucxSettings, setup, UnaryOperator.identity());
    }

    /** {@code before} may change the agent before it is deployed (e.g. make it speak an older protocol). */
    public AgentHarness(Path dir, UcxSettings ucxSettings, AgentSetup setup, UnaryOperator<AgentVerticle> before) {
        this.dir = dir;
        try {
            ucx = new UcxWorkerVerticle(ucxSettings);
            await(vertx.deployVerticle(ucx));
            agent = before.apply(setup.agent(ucx, dir));
            deployment =
                    await(vertx.deployVerticle(agent,
                    new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER)));
        } catch (RuntimeException | AssertionError e) {
            await(vertx.close());
            throw e;
        }
    }

    /** UCX with the given transports (as {@code UCX_TLS}), without the start-up transport probe. */
    public static UcxSettings ucx(String tls) {
        return UcxSetup.tls(tls).settings();
    }

    public int port() {
        return agent.port();
    }

    /** Closes {@code resource} when the agent closes, before its Vert.x instance (last handed, first closed). */
    public <C extends AutoCloseable> C closeWith(C resource) {
        resources.push(resource);
        return resource;
    }

    @Override
    public void close() throws Exception {
        try {
            while (!resources.isEmpty()) {
                resources.pop().close();
            }
        } finally {
            await(vertx.close());
        }
    }
}
