package org.seaweedfs.rdma.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.seaweedfs.rdma.volume.ChannelNeedleReader;
import org.seaweedfs.rdma.volume.DatScan;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.IndexReplay;
import org.seaweedfs.rdma.volume.LiveNeedles;
import org.seaweedfs.rdma.volume.NeedleHeader;
import org.seaweedfs.rdma.volume.NeedleMap;
import org.seaweedfs.rdma.volume.NeedleSummary;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.VolumeDirectory;
import org.seaweedfs.rdma.volume.VolumeFiles;
import org.seaweedfs.rdma.volume.VolumeFormatException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.seaweedfs.rdma.volume.ec.EcFiles;

/**
 * {@code inspect <volume dir | .dat file> [--offset5]}: an operator's bit-rot check. Prints one JSON line per
 * live needle (from the {@code .idx}, or from the records themselves when a {@code .dat} has no index), read in
 * file order with constant memory besides the needle map. Exit 1 when any checksum is bad or any record
 * unreadable. EC volumes (found by their {@code .ecx}) are read needle by needle through the shards present,
 * rebuilt from parity where a data shard is absent.
 */
@Command(name = "inspect", description = "Check every live needle's checksum: one JSON line per needle on stdout, "
        + "a summary on stderr; exit 1 on any bad checksum or unreadable record.")
final class InspectCommand implements Callable<Integer> {

    private final PrintStream out;
    private final PrintStream err;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<volume dir | .dat file>",
            description = "a volume directory (every <vid>.dat, <collection>_<vid>.dat) or one .dat file")
    Path target;

    @Option(names = "--offset5", description = "the .idx files use 5-byte offsets (volumes of a 5BytesOffset build)")
    boolean offset5;

    InspectCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() throws IOException {
        return inspect(target, offset5);
    }

    /** Inspects the volumes at {@code target}; returns the exit status. */
    int inspect(Path target, boolean offset5) throws IOException {
        long started = System.nanoTime();
        List<VolumeFiles> volumes = new ArrayList<>();
        List<EcFiles> ecVolumes = new ArrayList<>();
        if (Files.isDirectory(target)) {
            VolumeDirectory.Listing listing = VolumeDirectory.scan(target);
            listing.problems().forEach(p -> err.println("inspect: skipping " + p));
            volumes.addAll(listing.volumes());
            ecVolumes.addAll(EcVolumes.scan(target));
            if (volumes.isEmpty() && ecVolumes.isEmpty()) {
                err.println("inspect: no volumes (<vid>.dat or <collection>_<vid>.dat) in " + target);
            }
        } else if (Files.isRegularFile(target) && EcFiles.ofIndex(target) != null) {
            ecVolumes.add(EcFiles.ofIndex(target));
        } else if (Files.isRegularFile(target)) {
            try {
                volumes.add(VolumeFiles.of(target));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        } else {
            throw new ParameterException(spec.commandLine(), target + " is neither a directory nor a file");
        }
        long total = 0;
        for (VolumeFiles v : volumes) {
            total += Files.size(v.dat());
        }
        Run run = new Run(out, err, IndexFormat.of(offset5), new Progress(err, total));
        for (VolumeFiles v : volumes) {
            run.inspect(v);
        }
        for (EcFiles ec : ecVolumes) {
            run.failed |= !EcVolumes.inspect(ec, run.format, out, err);
        }
        out.flush();
        err.println(run.summary(volumes.size() + ecVolumes.size(), System.nanoTime() - started));
        return run.failed ? 1 : 0;
    }

    /** One invocation's state: reused buffers and whether anything was bad. */
    private static final class Run {
        private final PrintStream out;
        private final PrintStream err;
        private final IndexFormat format;
        private final Progress progress;
        private final ChannelNeedleReader reader = new ChannelNeedleReader();
        private boolean failed;
        private long needles;
        private long bytes;
        private long badChecksums;
        private long unreadable;

        Run(PrintStream out, PrintStream err, IndexFormat format, Progress progress) {
            this.out = out;
            this.err = err;
            this.format = format;
            this.progress = progress;
        }

        void inspect(VolumeFiles volume) throws IOException {
            String source = volume.dat().toString();
            try (FileChannel dat = FileChannel.open(volume.dat(), StandardOpenOption.READ)) {
                SuperBlock superBlock = SuperBlock.read(dat, source);
                NeedleMap map = liveNeedles(volume, dat, superBlock);
                LiveNeedles live = LiveNeedles.inOffsetOrder(map);
                long fileSize = dat.size();
                for (int i = 0; i < live.count(); i++) {
                    inspectNeedle(volume.volumeId(), dat, fileSize, superBlock.version(), live.key(i), live.offset(i),
                            map.sizeOf(live.key(i)), source);
                }
            } catch (VolumeFormatException e) {
                failed = true;
                err.println("inspect: " + e.getMessage());
            }
        }

        /**
         * From the index when there is one; otherwise by walking the records (an error there is reported, the rest
         * kept).
         */
        private NeedleMap liveNeedles(VolumeFiles volume, FileChannel dat, SuperBlock superBlock) throws IOException {
            NeedleMap map = new NeedleMap();
            if (volume.hasIndex()) {
                new IndexReplay(format).load(volume.idx(), map);
                return map;
            }
            long fileSize = dat.size();
            try {
                new DatScan().rebuild(dat, superBlock, map, volume.dat().toString(),
                        position ->
                                progress.at("walked record headers of " + volume.dat().getFileName(), position,
                                fileSize));
            } catch (VolumeFormatException e) {
                failed = true;
                err.println("inspect: " + e.getMessage() + " (records after it are not inspected)");
            }
            return map;
        }

        private void inspectNeedle(long volumeId, FileChannel dat, long fileSize, int version, long key, long offset,
                                   int indexSize, String source) throws IOException {
            try {
                NeedleSummary n = reader.read(dat, offset, fileSize, version, source);
                NeedleHeader h = n.header();
                if (h.key() != key || h.size() != indexSize) {
                    throw new VolumeFormatException(source, offset, "needle header", "holds key "
                            + Long.toHexString(h.key())
                            + " size " + h.size() + ", the index says key " + Long.toHexString(key) + " size "
                                    + indexSize);
                }
                needles++;
                bytes += n.dataLength();
                if (!n.crcState().isGood()) {
                    failed = true;
                    badChecksums++;
                }
                progress.advance(n.recordLength());
                out.println(new JsonLine()
                        .add("fid", h.fileId(volumeId).toString())
                        .add("size", n.dataLength())
                        .add("crc", String.format("%08x", n.crc()))
                        .add("crc_state", n.crcState().label())
                        .add("name", n.meta().name())
                        .add("mime", n.meta().mime())
                        .add("last_modified", n.meta().lastModified())
                        .add("compressed", n.meta().isCompressed()));
            } catch (VolumeFormatException e) {
                failed = true;
                out.println(JsonLine.unreadableNeedle(
                        new FileId(volumeId, key, cookieIfReadable(dat, key, offset, source)).toString(),
                                e.getMessage()));
            }
        }

        /** One line for the end: what was read and what was wrong. */
        String summary(int volumes, long elapsedNanos) {
            return String.format(Locale.ROOT,
                    "inspect: %d volumes, %d needles, %d bytes, %d bad checksums, %d unreadable, "
                    + "%.3f s%s", volumes, needles, bytes, badChecksums, unreadable, elapsedNanos / 1e9, failed
                            ? " - FAILED" : "");
        }

        /** The cookie of a broken record when its header can still be read and is the key's, else 0. */
        private int cookieIfReadable(FileChannel dat, long key, long offset, String source) throws IOException {
            try {
                NeedleHeader header = reader.readRawHeader(dat, offset, source);
                return header.key() == key ? header.cookie() : 0;
            } catch (VolumeFormatException e) {
                return 0;
            }
        }
    }
}
