package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Vertx;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.await;
import static org.seaweedfs.rdma.ucx.UcxTestSupport.onContext;

/**
 * Real UCX over loopback: a "server" (the agent's side) and a "client" worker, each deployed in its own Vert.x
 * instance, the server listening on an ephemeral port. Closing closes the client first: without peer error handling
 * UCX treats a vanished peer as fatal.
 */
final class UcxPair implements AutoCloseable {

    final Vertx serverVertx = Vertx.vertx();
    final Vertx clientVertx = Vertx.vertx();
    final UcxWorkerVerticle server;
    final UcxWorkerVerticle client;
    final String serverDeployment;
    final String clientDeployment;
    final UcxListener listener;
    /** The first channel the server accepted. */
    final CompletableFuture<UcxChannel> accepted = new CompletableFuture<>();

    UcxPair(UcxSettings settings) throws Exception {
        this(settings, settings);
    }

    UcxPair(UcxSettings serverSettings, UcxSettings clientSettings) throws Exception {
        server = new UcxWorkerVerticle(serverSettings);
        client = new UcxWorkerVerticle(clientSettings);
        serverDeployment = await(serverVertx.deployVerticle(server));
        clientDeployment = await(clientVertx.deployVerticle(client));
        listener = await(server.listen("127.0.0.1", 0, accepted::complete));
        assertTrue(listener.port() > 0, "an ephemeral port was bound");
    }

    /** A client channel with the key of a server region and a registered local buffer, set up on {@code context}. */
    record GetSetup(Context context, UcxChannel channel, UcxRemoteKey key, UcxMemoryRegion remote,
                    UcxMemoryRegion local) {
    }

    /** Gets of a registered (direct) server buffer of {@code size} random bytes. */
    GetSetup connectForGets(int size) throws Exception {
        ByteBuffer content = ByteBuffer.allocateDirect(size).put(UcxTestSupport.randomBytes(size, size)).clear();
        return connectForGets(await(server.register(content)), size);
    }

    /** Gets of {@code remote} into a registered local buffer of {@code localSize} bytes, on a new client context. */
    GetSetup connectForGets(UcxMemoryRegion remote, int localSize) throws Exception {
        return connectForGets(remote, ByteBuffer.allocateDirect(localSize));
    }

    /** Gets of {@code remote} into {@code local} (a direct buffer, registered here), on a new client context. */
    GetSetup connectForGets(UcxMemoryRegion remote, ByteBuffer localBuffer) throws Exception {
        UcxMemoryRegion local = await(client.register(localBuffer));
        Context clientContext = clientVertx.getOrCreateContext();
        UcxChannel channel = onContext(clientContext, () -> client.connect("127.0.0.1", listener.port()));
        UcxRemoteKey key = onContext(clientContext, () -> channel.unpackRemoteKey(remote.packedRemoteKey()));
        return new GetSetup(clientContext, channel, key, remote, local);
    }

    /**
     * {@code setup} issued from a worker context of the client's Vert.x instead: no event loop, so every get takes the
     * owner thread's path (event-loop lanes serve only the instance's event loops).
     */
    GetSetup onWorkerContext(GetSetup setup) {
        Context worker = ((io.vertx.core.internal.VertxInternal) clientVertx).createWorkerContext();
        return new GetSetup(worker, setup.channel(), setup.key(), setup.remote(), setup.local());
    }

    @Override
    public void close() throws Exception {
        await(clientVertx.close()); // undeploys the verticle: must not hang
        await(serverVertx.close());
    }
}
