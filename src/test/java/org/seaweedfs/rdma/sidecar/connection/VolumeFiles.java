package org.seaweedfs.rdma.sidecar.connection;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Random;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.NewNeedle;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.Ttl;
import org.seaweedfs.rdma.volume.VolumeWriter;

/** What the tests of reads against a live agent do to volume files and read back. */
final class VolumeFiles {

    private VolumeFiles() {
    }

    /**
     * Compacts volume {@code volume} in {@code dir} as SeaweedFS does: a new pair of files with every key of
     * {@code after} (key i + 1, cookie {@code cookieOfKey ? key : i}) in reverse order with new random bytes of 50 to
     * 449 bytes, renamed over the old pair. Fills {@code after} with the new bytes.
     */
    static void compact(Path dir, long volume, List<byte[]> after, boolean cookieOfKey, long seed) throws IOException {
        Path staging = Files.createDirectories(dir.resolve("staging"));
        Random random = new Random(seed);
        Path dat = staging.resolve(volume + ".cpd");
        Path idx = staging.resolve(volume + ".cpx");
        try (VolumeWriter writer = VolumeWriter.create(dat, idx, new SuperBlock(3, 0, Ttl.NONE, 1, null),
                IndexFormat.OFFSET4)) {
            for (int i = after.size() - 1; i >= 0; i--) { // another order: an old offset reads another record
                byte[] bytes = new byte[50 + random.nextInt(400)];
                random.nextBytes(bytes);
                writer.append(NewNeedle.builder(i + 1, cookieOfKey ? i + 1 : i, bytes).appendAtNs(100 + i).build());
                after.set(i, bytes);
            }
        }
        Files.move(dat, dir.resolve(volume + ".dat"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        Files.move(idx, dir.resolve(volume + ".idx"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }
}
