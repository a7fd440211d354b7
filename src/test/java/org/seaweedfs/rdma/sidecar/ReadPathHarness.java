package org.seaweedfs.rdma.sidecar;

import org.seaweedfs.rdma.sidecar.connection.AgentConnection;
import org.seaweedfs.rdma.sidecar.connection.AgentRouter;
import org.seaweedfs.rdma.sidecar.memory.RegisteredBufferPool;
import org.seaweedfs.rdma.sidecar.read.NeedleReader;
import org.seaweedfs.rdma.sidecar.read.ReadPathOptions;

import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import org.seaweedfs.rdma.testing.AgentHarness;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;

/**
 * A real sidecar read path over UCX loopback in its own Vert.x instance (and UCX worker), for the tests and the
 * latency main; the agent it reads from is a {@link AgentHarness}.
 */
public final class ReadPathHarness {

    private ReadPathHarness() {
    }

    /** The sidecar side: its own worker and a registered pool; connections are made per test. */
    public static final class SidecarSide implements AutoCloseable {
        public final Vertx vertx = Vertx.vertx();
        public final UcxWorkerVerticle ucx;
        public final RegisteredBufferPool pool;

        public SidecarSide(String tls, RegisteredBufferPool.Settings poolSettings) {
            ucx = new UcxWorkerVerticle(AgentHarness.ucx(tls));
            await(vertx.deployVerticle(ucx));
            pool = new RegisteredBufferPool(poolSettings);
            await(pool.register(ucx));
        }

        public AgentConnection connect(int port, String token) {
            return await(AgentConnection.connect(vertx, ucx,
                    AgentConnection.Options.of("127.0.0.1", port, "test-sidecar", token)));
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

    /** The needle's bytes read through {@code reader} (the content released). */
    public static byte[] readBytes(NeedleReader reader, org.seaweedfs.rdma.volume.FileId fid) {
        NeedleContent content = await(reader.read(fid));
        try {
            io.vertx.core.buffer.Buffer all = io.vertx.core.buffer.Buffer.buffer();
            content.chunks().forEach(all::appendBuffer);
            return all.getBytes();
        } finally {
            content.release();
        }
    }
}
