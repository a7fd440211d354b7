package org.seaweedfs.rdma.testing;

import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.List;
import org.seaweedfs.rdma.config.HostPort;
import org.seaweedfs.rdma.sidecar.StubMaster;
import org.seaweedfs.rdma.sidecar.StubVolumeServer;

/**
 * STAND-INs for what cannot run here, as processes of their own on a cluster's host (tests and bench/drill.sh):
 * <pre>
 *   master HOST:PORT VID=SERVER[,SERVER...]...   the master's /dir/lookup ({@link StubMaster})
 *   volume-server HOST:PORT DIR                  a volume server reading DIR's volumes ({@link StubVolumeServer})
 * </pre>
 * Prints {@code ready: ...} on stdout when listening; runs until killed.
 */
public final class StandInMain {

    private StandInMain() {
    }

    public static void main(String[] args) {
        if (args.length < 2) {
            usage("missing arguments");
        }
        HostPort listen;
        try {
            listen = HostPort.parse(args[1]);
        } catch (IllegalArgumentException e) {
            usage(args[1] + ": " + e.getMessage());
            return;
        }
        Vertx vertx = Vertx.vertx();
        switch (args[0]) {
            case "master" -> {
                StubMaster master = await(new StubMaster(vertx).start(listen.host(), listen.port()));
                for (String location : List.of(args).subList(2, args.length)) {
                    String[] vidServers = location.split("=", 2);
                    if (vidServers.length != 2 || !vidServers[0].matches("\\d{1,9}")) {
                        usage("not VID=SERVER[,SERVER...]: " + location);
                    }
                    master.locate(Long.parseLong(vidServers[0]), vidServers[1].split(","));
                }
            }
            case "volume-server" -> {
                if (args.length != 3) {
                    usage("volume-server takes HOST:PORT DIR");
                }
                await(new StubVolumeServer(vertx).start(Path.of(args[2]), listen.host(), listen.port()));
            }
            default -> usage("unknown stand-in " + args[0]);
        }
        System.out.println("ready: " + args[0] + " stand-in on " + listen);
    }

    private static void usage(String problem) {
        System.err.println("StandInMain: " + problem + "\nusage: master HOST:PORT VID=SERVER[,SERVER...]... | "
                + "volume-server HOST:PORT DIR");
        System.exit(2);
    }
}
