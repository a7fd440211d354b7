package org.seaweedfs.rdma.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.seaweedfs.rdma.volume.FileId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.seaweedfs.rdma.volume.ec.EcLayout;

/**
 * {@code gen-volume <dir> --vid N --count N --size BYTES [--seed N] [--plain DIR]}: writes a benchmark volume in
 * the real format, and optionally the same bytes as plain files for a peer web server; prints one URL path per
 * needle ({@code /<fid>}) so load generators can spread requests over them. With {@code --ec} the volume is then
 * erasure-coded ({@code .ec00..}, {@code .ecx}, {@code .ecj}, {@code .vif}; 10 + 4 unless
 * {@code --data-shards/--parity-shards} say otherwise) and its {@code .dat}/{@code .idx} removed. With
 * {@code --derived} the needles are 1..count with cookie and bytes derived from (volume, key)
 * ({@link SampleVolumes#derivedBytes}), and nothing is printed: a checker recomputes any needle (the scale
 * benchmark, millions of needles).
 */
@Command(name = "gen-volume", description = "Write a benchmark volume in SeaweedFS's format (<vid>.dat and <vid>.idx) "
        + "and print one URL path per needle (/<fid>).")
final class GenVolumeCommand implements Callable<Integer> {

    /** All needles together at most this many bytes. */
    static final long MAX_TOTAL_BYTES = 64L << 30;

    private final PrintStream out;
    private final PrintStream err;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<dir>",
            description = "directory to write the volume into (created if missing)")
    Path dir;

    @Option(names = "--vid", required = true, paramLabel = "N", description = "volume id")
    String vid;

    @Option(names = "--count", required = true, paramLabel = "N", description = "number of needles, >= 1")
    int count;

    @Option(names = "--size", required = true, paramLabel = "BYTES", description = "bytes of data per needle, >= 1")
    int size;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
            description = "seed of the random contents (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--plain", paramLabel = "DIR", description = "also write each needle's bytes as a plain file here, "
            + "for a peer web server")
    Path plain;

    @Option(names = "--derived", description = "needles 1..count with cookie and bytes derived from (volume, key); "
            + "prints nothing (a checker recomputes any needle: the scale benchmark)")
    boolean derived;

    @Option(names = "--ec", description = "erasure-code the volume as ec.encode leaves it: shards, .ecx, .ecj, .vif "
            + "(the .dat and .idx are removed)")
    boolean ec;

    @Option(names = "--data-shards", paramLabel = "N", description = "EC data shards (default: ${DEFAULT-VALUE})")
    int dataShards = EcLayout.DEFAULT_DATA_SHARDS;

    @Option(names = "--parity-shards", paramLabel = "N", description = "EC parity shards (default: ${DEFAULT-VALUE})")
    int parityShards = EcLayout.DEFAULT_PARITY_SHARDS;

    GenVolumeCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() throws Exception {
        long volumeId;
        try {
            volumeId = FileId.parseVolumeId(vid);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--vid: " + e.getMessage());
        }
        if (count < 1 || size < 1 || (long) count * size > MAX_TOTAL_BYTES) {
            throw new ParameterException(spec.commandLine(),
                    "--count >= 1 and --size >= 1 are required (at most 64 GiB in all)");
        }
        if (derived && plain != null) {
            throw new ParameterException(spec.commandLine(), "--derived writes no plain copies");
        }
        if (ec) {
            try {
                EcLayout.of(dataShards, parityShards);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        return generate(dir, volumeId, count, size, seed, plain);
    }

    /** Writes the volume and prints its paths; returns the exit status. */
    int generate(Path dir, long volumeId, int count, int size, long seed, Path plain) throws Exception {
        if (derived) {
            SampleVolumes.writeDerived(dir, volumeId, count, size);
            if (ec) {
                EcVolumes.encode(dir, volumeId, dataShards, parityShards);
            }
            return 0;
        }
        List<FileId> ids = SampleVolumes.writeBench(dir, volumeId, count, size, seed, plain);
        if (ec) {
            EcVolumes.encode(dir, volumeId, dataShards, parityShards);
        }
        SampleVolumes.printPaths(ids, out);
        return 0;
    }
}
