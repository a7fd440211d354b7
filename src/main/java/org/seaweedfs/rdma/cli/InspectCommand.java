package org.seaweedfs.rdma.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
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
import org.seaweedfs.rdma.volume.ec.EcFiles;

/**
 * {@code inspect <volume dir | .dat file> [--offset5]}: an operator's bit-rot check. Prints one JSON line per
 * live needle (from the {@code .idx}, or from the records themselves when a {@code .dat} has no index), read in
 * file order with constant memory besides the needle map. Exit 1 when any checksum is bad or any record
 * unreadable. EC volumes (found by their {@code .ecx}) are read needle by needle through the shards present,
 * rebuilt from parity where a data shard is absent.
 */
final class InspectCommand implements Command {

    @Override
    public String name() {
        return "inspect";
    }

    @Override
    public String usage() {
        return "<volume dir | .dat file> [--offset5]   one JSON line per live needle; exit 1 on any bad checksum";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws IOException {
        Path target = null;
        boolean offset5 = false;
        for (String arg : args) {
            if (arg.equals("--offset5")) {
                offset5 = true;
            } else if (arg.startsWith("-") || target != null) {
                return usageError(err, "unexpected argument '" + arg + "'");
            } else {
                target = Path.of(arg);
            }
        }
        if (target == null) {
            return usageError(err, "missing <volume dir | .dat file>");
        }
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
                return usageError(err, e.getMessage());
            }
        } else {
            return usageError(err, target + " is neither a directory nor a file");
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
        return run.failed ? 1 : 0;
    }

    private int usageError(PrintStream err, String problem) {
        return Main.usageError(err, name(), problem);
    }

    /** One invocation's state: reused buffers and whether anything was bad. */
    private static final class Run {
        private final PrintStream out;
        private final PrintStream err;
        private final IndexFormat format;
        private final Progress progress;
        private final ChannelNeedleReader reader = new ChannelNeedleReader();
        private boolean failed;

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

        /** From the index when there is one; otherwise by walking the records (an error there is reported, the rest kept). */
        private NeedleMap liveNeedles(VolumeFiles volume, FileChannel dat, SuperBlock superBlock) throws IOException {
            NeedleMap map = new NeedleMap();
            if (volume.hasIndex()) {
                new IndexReplay(format).load(volume.idx(), map);
                return map;
            }
            long fileSize = dat.size();
            try {
                new DatScan().rebuild(dat, superBlock, map, volume.dat().toString(),
                        position -> progress.at("walked record headers of " + volume.dat().getFileName(), position, fileSize));
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
                    throw new VolumeFormatException(source, offset, "needle header", "holds key " + Long.toHexString(h.key())
                            + " size " + h.size() + ", the index says key " + Long.toHexString(key) + " size " + indexSize);
                }
                failed |= !n.crcState().isGood();
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
                        new FileId(volumeId, key, cookieIfReadable(dat, key, offset, source)).toString(), e.getMessage()));
            }
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
