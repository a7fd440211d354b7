package org.seaweedfs.rdma.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.ec.EcLayout;

/**
 * {@code gen-volume <dir> --vid N --count N --size BYTES [--seed N] [--plain DIR]}: writes a benchmark volume in
 * the real format, and optionally the same bytes as plain files for a peer web server; prints one URL path per
 * needle ({@code /<fid>}) so load generators can spread requests over them. With {@code --ec} the volume is then
 * erasure-coded ({@code .ec00..}, {@code .ecx}, {@code .ecj}, {@code .vif}; 10 + 4 unless
 * {@code --data-shards/--parity-shards} say otherwise) and its {@code .dat}/{@code .idx} removed.
 */
final class GenVolumeCommand implements Command {

    @Override
    public String name() {
        return "gen-volume";
    }

    @Override
    public String usage() {
        return "<dir> --vid N --count N --size BYTES [--seed N] [--plain DIR] [--ec [--data-shards N] [--parity-shards N]]"
                + "   write a benchmark volume (--ec: erasure-coded, as ec.encode leaves it), print its paths";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        boolean ec = args.contains("--ec");
        args = args.stream().filter(a -> !a.equals("--ec")).toList();
        int dataShards = EcLayout.DEFAULT_DATA_SHARDS;
        int parityShards = EcLayout.DEFAULT_PARITY_SHARDS;
        if (args.isEmpty() || args.get(0).startsWith("-")) {
            return usageError(err, "missing <dir>");
        }
        Path dir = Path.of(args.get(0));
        long vid = -1;
        int count = -1;
        int size = -1;
        long seed = 1;
        Path plain = null;
        for (int i = 1; i < args.size(); i += 2) {
            String flag = args.get(i);
            if (i + 1 >= args.size()) {
                return usageError(err, flag + " needs a value");
            }
            String value = args.get(i + 1);
            try {
                switch (flag) {
                    case "--vid" -> vid = FileId.parseVolumeId(value);
                    case "--count" -> count = Integer.parseInt(value);
                    case "--size" -> size = Integer.parseInt(value);
                    case "--seed" -> seed = Long.parseLong(value);
                    case "--plain" -> plain = Path.of(value);
                    case "--data-shards" -> dataShards = Integer.parseInt(value);
                    case "--parity-shards" -> parityShards = Integer.parseInt(value);
                    default -> {
                        return usageError(err, "unknown option '" + flag + "'");
                    }
                }
            } catch (IllegalArgumentException e) {
                return usageError(err, flag + ": " + e.getMessage());
            }
        }
        if (vid < 0 || count < 1 || size < 1 || (long) count * size > (64L << 30)) {
            return usageError(err, "--vid, --count >= 1 and --size >= 1 are required (at most 64 GiB in all)");
        }
        if (ec) {
            try {
                EcLayout.of(dataShards, parityShards);
            } catch (IllegalArgumentException e) {
                return usageError(err, e.getMessage());
            }
        }
        List<FileId> ids = SampleVolumes.writeBench(dir, vid, count, size, seed, plain);
        if (ec) {
            EcVolumes.encode(dir, vid, dataShards, parityShards);
        }
        SampleVolumes.printPaths(ids, out);
        return 0;
    }

    private int usageError(PrintStream err, String problem) {
        return Main.usageError(err, name(), problem);
    }
}
