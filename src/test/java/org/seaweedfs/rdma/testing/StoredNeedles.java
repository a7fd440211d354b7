package org.seaweedfs.rdma.testing;

import org.seaweedfs.rdma.volume.FileId;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NeedleRecord;
import org.seaweedfs.rdma.volume.Volume;
import org.seaweedfs.rdma.volume.VolumeFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The live needles with data of a volume's {@code .dat}, as stored: what every read of them must answer. */
public final class StoredNeedles {

    private StoredNeedles() {
    }

    /** By key: the file id (under {@code volumeId}) and the data of each live needle with data. */
    public static Map<Long, Map.Entry<FileId, byte[]>> of(Path dat, long volumeId) throws IOException {
        Map<Long, Map.Entry<FileId, byte[]>> out = new TreeMap<>();
        try (Volume volume = Volume.open(VolumeFiles.of(dat), IndexFormat.OFFSET4)) {
            List<long[]> entries = new ArrayList<>();
            volume.map().forEach((key, offset, size) -> entries.add(new long[] {key, offset, size}));
            for (long[] e : entries) {
                if (e[2] > 0) {
                    NeedleRecord n = NeedleRecord.parse(volume.readRecord(e[1], e[2]), 0, volume.version(),
                            dat.toString(), e[1]);
                    ByteBuffer data = n.data();
                    byte[] bytes = new byte[data.remaining()];
                    data.get(bytes);
                    out.put(e[0], Map.entry(new FileId(volumeId, n.key(), n.cookie()), bytes));
                }
            }
        }
        return out;
    }
}
