package org.seaweedfs.rdma.sidecar;

import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;

/**
 * A real sidecar read path over UCX loopback in its own Vert.x instance (and UCX worker), for the tests and the
 * latency main; the agent it reads from is a {@link AgentHarness}.
 */
final class ReadPathHarness {

    private ReadPathHarness() {
    }

    /** The sidecar side: its own worker and a registered pool; connections are made per test. */
    static final class SidecarSide implements AutoCloseable {
        final Vertx vertx = Vertx.vertx();
        final UcxWorkerVerticle ucx;
        final RegisteredBufferPool pool;

        SidecarSide(String tls, RegisteredBufferPool.Settings poolSettings) {
            ucx = new UcxWorkerVerticle(AgentHarness.ucx(tls));
            await(vertx.deployVerticle(ucx));
            pool = new RegisteredBufferPool(poolSettings);
            await(pool.register(ucx));
        }

        AgentConnection connect(int port, String token) {
            return await(AgentConnection.connect(vertx, ucx, AgentConnection.Options.of("127.0.0.1", port, "test-sidecar", token)));
        }

        NeedleReader reader(AgentRouter router, ReadPathOptions options) {
            return new NeedleReader(vertx, router, pool, options);
        }

        @Override
        public void close() {
            await(pool.deregister());
            await(vertx.close());
        }
    }
}
