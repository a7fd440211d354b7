package org.seaweedfs.rdma.e2e;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleRecord;
import org.seaweedfs.rdma.volume.NeedleHeader;
import org.seaweedfs.rdma.volume.Volume;
import org.seaweedfs.rdma.volume.VolumeDirectory;
import org.seaweedfs.rdma.volume.VolumeFiles;

/**
 * What the fixture volumes hold, read straight from the files (the volume package, no network): the expected
 * answers of the end-to-end tests.
 */
final class FixtureNeedles {

    /** One live needle: its data as stored, its metadata, and the CRC-32C of the stored data (the ETag). */
    record Expected(FileId fid, byte[] stored, String name, String mime, long lastModified, boolean compressed,
                    String etag) {

        /** The bytes a client gets without Accept-Encoding: gzip. */
        byte[] plain() {
            if (!compressed) {
                return stored;
            }
            try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(stored))) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private FixtureNeedles() {
    }

    /** Every live needle with data of volume {@code volumeId} in {@code dir}. */
    static List<Expected> live(Path dir, long volumeId) {
        try (Volume volume = open(dir, volumeId)) {
            List<Expected> out = new ArrayList<>();
            List<long[]> entries = new ArrayList<>();
            volume.map().forEach((key, offset, size) -> entries.add(new long[] {key, offset, size}));
            for (long[] e : entries) {
                if (e[2] == 0) {
                    continue; // live but empty (an empty file): see empty()
                }
                NeedleRecord n =
                        NeedleRecord.parse(volume.readRecord(e[1], e[2]), 0, volume.version(), "fixture", e[1]);
                out.add(new Expected(new FileId(volumeId, n.key(), n.cookie()), bytes(n.data()), n.meta().name(),
                        n.meta().mime(), n.meta().lastModified(), n.meta().isCompressed(),
                        String.format("%08x", n.computeCrc())));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The live needles of volume {@code volumeId} without data (Size 0: empty files), with their cookies. */
    static List<FileId> empty(Path dir, long volumeId) {
        try (Volume volume = open(dir, volumeId)) {
            List<long[]> entries = new ArrayList<>();
            volume.map().forEach((key, offset, size) -> entries.add(new long[] {key, offset, size}));
            List<FileId> out = new ArrayList<>();
            for (long[] e : entries) {
                if (e[2] == 0) {
                    ByteBuffer record = volume.readRecord(e[1], 0);
                    out.add(new FileId(volumeId, e[0], NeedleHeader.parse(record, 0, "fixture", e[1]).cookie()));
                }
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The needles of volume {@code volumeId} that were written and then deleted (with their real cookies). */
    static List<FileId> deleted(Path dir, long volumeId) {
        try (Volume volume = open(dir, volumeId)) {
            ByteBuffer idx = ByteBuffer.wrap(Files.readAllBytes(volume.files().idx()));
            Set<FileId> out = new LinkedHashSet<>();
            while (idx.remaining() >= 16) {
                long key = idx.getLong();
                long offset = Integer.toUnsignedLong(idx.getInt()) * 8;
                int size = idx.getInt();
                if (offset != 0 && size > 0 && !volume.map().contains(key)) {
                    NeedleRecord n =
                            NeedleRecord.parse(volume.readRecord(offset, size), 0, volume.version(), "fixture", offset);
                    out.add(new FileId(volumeId, key, n.cookie()));
                }
            }
            return List.copyOf(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Volume open(Path dir, long volumeId) throws IOException {
        for (VolumeFiles files : VolumeDirectory.scan(dir).volumes()) {
            if (files.volumeId() == volumeId) {
                return Volume.open(files, IndexFormat.OFFSET4);
            }
        }
        throw new IllegalArgumentException("no volume " + volumeId + " in " + dir);
    }

    private static byte[] bytes(ByteBuffer data) {
        ByteBuffer d = data.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }
}
