package org.seaweedfs.rdma.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import org.seaweedfs.rdma.volume.FileId;

/**
 * {@code gen-volume <dir> --vid N --count N --size BYTES [--seed N] [--plain DIR] [--derived]}: writes a benchmark
 * volume in the real format, and optionally the same bytes as plain files for a peer web server; prints one URL
 * path per needle ({@code /<fid>}) so load generators can spread requests over them. With {@code --derived} the
 * needles are 1..count with cookie and bytes derived from (volume, key) ({@link SampleVolumes#derivedBytes}), and
 * nothing is printed: a checker recomputes any needle (the scale benchmark, millions of needles).
 */
final class GenVolumeCommand implements Command {

    @Override
    public String name() {
        return "gen-volume";
    }

    @Override
    public String usage() {
        return "<dir> --vid N --count N --size BYTES [--seed N] [--plain DIR] [--derived]   write a benchmark volume, print its paths";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        if (args.isEmpty() || args.get(0).startsWith("-")) {
            return usageError(err, "missing <dir>");
        }
        Path dir = Path.of(args.get(0));
        long vid = -1;
        int count = -1;
        int size = -1;
        long seed = 1;
        Path plain = null;
        boolean derived = false;
        for (int i = 1; i < args.size(); i += 2) {
            String flag = args.get(i);
            if (flag.equals("--derived")) {
                derived = true;
                i--;
                continue;
            }
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
        if (derived) {
            if (plain != null) {
                return usageError(err, "--derived writes no plain copies");
            }
            SampleVolumes.writeDerived(dir, vid, count, size);
            return 0;
        }
        List<FileId> ids = SampleVolumes.writeBench(dir, vid, count, size, seed, plain);
        SampleVolumes.printPaths(ids, out);
        return 0;
    }

    private int usageError(PrintStream err, String problem) {
        return Main.usageError(err, name(), problem);
    }
}
