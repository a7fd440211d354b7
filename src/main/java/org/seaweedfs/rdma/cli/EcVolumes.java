package org.seaweedfs.rdma.cli;

import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.LiveNeedles;
import org.seaweedfs.rdma.volume.NeedleRecord;
import org.seaweedfs.rdma.volume.NeedleMap;
import org.seaweedfs.rdma.volume.VolumeFormatException;
import org.seaweedfs.rdma.volume.ec.EcFiles;
import org.seaweedfs.rdma.volume.ec.EcLayout;
import org.seaweedfs.rdma.volume.ec.EcVolume;
import org.seaweedfs.rdma.volume.ec.EcWriter;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The EC side of {@code gen-volume --ec} and {@code inspect}, kept apart from the commands' option parsing. */
final class EcVolumes {

    private EcVolumes() {
    }

    /**
     * Encodes {@code <dir>/<vid>.dat} and {@code .idx} into an EC volume beside them, as {@code ec.encode} does, then
     * removes the {@code .dat} and {@code .idx} (an EC volume replaces its plain one).
     */
    static EcWriter.Result encode(Path dir, long volumeId, int dataShards, int parityShards) throws IOException {
        Path dat = dir.resolve(volumeId + ".dat");
        Path idx = dir.resolve(volumeId + ".idx");
        EcWriter.Result result = EcWriter.write(dat, idx, new EcFiles(dir, "", volumeId),
                EcLayout.of(dataShards, parityShards), IndexFormat.OFFSET4, System.currentTimeMillis() * 1_000_000L);
        Files.delete(dat);
        Files.delete(idx);
        return result;
    }

    /** The EC volumes of a directory (by their {@code .ecx}), sorted by collection then id. */
    static List<EcFiles> scan(Path dir) throws IOException {
        List<EcFiles> found = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.ecx")) {
            for (Path ecx : files) {
                EcFiles ec = Files.isRegularFile(ecx) ? EcFiles.ofIndex(ecx) : null;
                if (ec != null) {
                    found.add(ec);
                }
            }
        }
        found.sort(Comparator.comparing(EcFiles::collection).thenComparingLong(EcFiles::volumeId));
        return found;
    }

    /**
     * Reads every live needle (the {@code .ecx} minus the {@code .ecj}) through the layout, in {@code .dat} order,
     * rebuilding from parity where a data shard is absent, and prints one JSON line per needle as {@code inspect}
     * does for a {@code .dat}. Returns false when any needle is bad or the volume cannot be read.
     */
    static boolean inspect(EcFiles files, IndexFormat format, PrintStream out, PrintStream err) throws IOException {
        boolean good = true;
        try (EcVolume ec = EcVolume.open(files, format)) {
            if (!ec.rottenShards().isEmpty()) {
                err.println("inspect: " + files.baseName() + ": shards " + ec.rottenShards() + " fail the checksums"
                        + " of " + files.ecsum(0) + "; read without them (rebuilt from the others)");
            }
            NeedleMap map = new NeedleMap();
            ec.index().forEachLive((key, offset, size) -> {
                if (!ec.deletions().isDeleted(key)) {
                    map.put(key, offset, size);
                }
            });
            LiveNeedles live = LiveNeedles.inOffsetOrder(map);
            for (int i = 0; i < live.count(); i++) {
                good &= inspectNeedle(ec, live.key(i), live.offset(i), map.sizeOf(live.key(i)), out);
            }
        } catch (VolumeFormatException e) {
            err.println("inspect: " + e.getMessage());
            return false;
        }
        return good;
    }

    private static boolean inspectNeedle(EcVolume ec, long key, long offset, int size,
            PrintStream out) throws IOException {
        long volumeId = ec.files().volumeId();
        String source = ec.files().ecx().toString();
        try {
            ByteBuffer record = ec.readRecord(offset, size);
            NeedleRecord n = NeedleRecord.parse(record, 0, ec.version(), source, offset);
            if (n.key() != key) {
                throw new VolumeFormatException(source, offset, "key", "record holds " + Long.toHexString(n.key())
                        + ", the index says " + Long.toHexString(key));
            }
            var state = n.verify();
            out.println(new JsonLine()
                    .add("fid", n.header().fileId(volumeId).toString())
                    .add("size", n.dataLength())
                    .add("crc", String.format("%08x", n.computeCrc()))
                    .add("crc_state", state.label())
                    .add("name", n.meta().name())
                    .add("mime", n.meta().mime())
                    .add("last_modified", n.meta().lastModified())
                    .add("compressed", n.meta().isCompressed()));
            return state.isGood();
        } catch (VolumeFormatException e) {
            out.println(JsonLine.unreadableNeedle(new FileId(volumeId, key, 0).toString(), e.getMessage()));
            return false;
        }
    }
}
