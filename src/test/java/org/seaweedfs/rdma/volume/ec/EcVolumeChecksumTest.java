package org.seaweedfs.rdma.volume.ec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.seaweedfs.rdma.volume.IndexFormat;
import org.seaweedfs.rdma.volume.Volume;
import org.seaweedfs.rdma.volume.VolumeFiles;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** The offline EC reader never takes a shard the volume's {@code .ecsum} calls rotten, even for a rebuild. */
class EcVolumeChecksumTest {

    @TempDir
    Path tmp;

    @Test
    void rottenShardsCountAsAbsentAndEveryRecordStillReads() throws Exception {
        Path dir = IndependentEcWriter.encodeFixtureWithChecksums(tmp.resolve("ec"), 4, 2);
        flip(dir.resolve("1.ec01"), 100); // a data shard, read directly otherwise
        flip(dir.resolve("1.ec04"), 5000); // a parity shard, the first a rebuild of shard 1 would take
        List<long[]> entries = new ArrayList<>();
        try (Volume plain = Volume.open(VolumeFiles.of(EcTestVolumes.fixtureDat()), IndexFormat.OFFSET4);
             EcVolume ec = EcVolume.open(new EcFiles(dir, "", 1), IndexFormat.OFFSET4)) {
            assertEquals(List.of(1, 4), ec.rottenShards());
            assertFalse(ec.hasShard(1));
            plain.map().forEach((key, offset, size) -> entries.add(new long[] {offset, size}));
            for (long[] e : entries) {
                ByteBuffer want = plain.readRecord(e[0], e[1]);
                ByteBuffer got = ec.readRecord(e[0], e[1]);
                assertArrayEquals(bytes(want), bytes(got), "record at " + e[0]);
            }
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static void flip(Path shard, long at) throws Exception {
        try (FileChannel ch = FileChannel.open(shard, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, at);
            one.put(0, (byte) ~one.get(0)).rewind();
            ch.write(one, at);
        }
    }
}
