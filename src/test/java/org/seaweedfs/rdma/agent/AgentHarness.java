package org.seaweedfs.rdma.agent;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import org.seaweedfs.rdma.protocol.SyncEntries;
import org.seaweedfs.rdma.protocol.SyncRequest;
import org.seaweedfs.rdma.protocol.VolumeInfo;
import org.seaweedfs.rdma.protocol.VolumeList;
import org.seaweedfs.rdma.protocol.VolumeListRequest;
import org.seaweedfs.rdma.ucx.UcxWorkerVerticle;
import org.seaweedfs.rdma.volume.Fixtures;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.seaweedfs.rdma.agent.AgentTestClient.await;

/** An agent in its own Vert.x serving a copy of the fixture volumes, and the test clients connected to it. */
final class AgentHarness implements AutoCloseable {

    final Path dir;
    final Vertx vertx = Vertx.vertx();
    final AgentVerticle agent;
    final UcxWorkerVerticle ucx;
    final String deployment;
    private final List<AgentTestClient> clients = new ArrayList<>();

    /**
     * Serves a copy of the fixtures in {@code tmp/volumes} (so {@code tmp} has room for staging files on the same file
     * system); {@code tune} adjusts the test defaults (fast polling, short grace).
     */
    AgentHarness(Path tmp, UnaryOperator<AgentSettings> tune) throws Exception {
        this(tune, Fixtures.copyDir("volumes", Files.createDirectories(tmp.resolve("volumes"))));
    }

    /** Serves {@code dir} as it is. */
    AgentHarness(UnaryOperator<AgentSettings> tune, Path dir) throws Exception {
        this.dir = dir;
        ucx = new UcxWorkerVerticle(AgentTestClient.ucxSettings());
        await(vertx.deployVerticle(ucx));
        AgentSettings settings = tune.apply(AgentSettings.of("127.0.0.1", 0, List.of(this.dir))
                .withPollInterval(Duration.ofMillis(100)).withRetireGrace(Duration.ofSeconds(1)));
        agent = new AgentVerticle(ucx, settings);
        deployment = await(vertx.deployVerticle(agent, new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER)));
    }

    AgentTestClient connect() throws Exception {
        AgentTestClient client = new AgentTestClient(agent.port());
        clients.add(client);
        return client;
    }

    /** A client that completed the handshake (no token). */
    AgentTestClient sidecar() throws Exception {
        AgentTestClient client = connect();
        client.hello(agent.settings().authToken());
        return client;
    }

    static VolumeInfo volume(AgentTestClient client, long volumeId) throws Exception {
        VolumeList list = client.request(VolumeListRequest::new, VolumeList.class);
        return list.volumes().stream().filter(v -> v.volumeId() == volumeId).findFirst()
                .orElseThrow(() -> new AssertionError("volume " + volumeId + " not listed in " + list.volumes()));
    }

    /** A full sync, following {@code more}, as one concatenation of frames. */
    static List<SyncEntries> fullSync(AgentTestClient client, long volumeId, long epoch) throws Exception {
        List<SyncEntries> frames = new ArrayList<>();
        SyncEntries frame = client.request(id -> new SyncRequest(id, volumeId, epoch, 0), SyncEntries.class);
        frames.add(frame);
        while (frame.more()) {
            SyncEntries last = frame;
            frame = client.request(id -> new SyncRequest(id, volumeId, last.epoch(), last.toPosition()), SyncEntries.class);
            frames.add(frame);
        }
        return frames;
    }

    @Override
    public void close() throws Exception {
        for (AgentTestClient client : clients) {
            client.close();
        }
        await(vertx.close());
    }
}
