package org.seaweedfs.rdma.volume.ec;

import org.seaweedfs.rdma.volume.Fixtures;
import org.seaweedfs.rdma.volume.IndexFormat;

import java.io.IOException;
import java.nio.file.Path;

/** EC volumes written from SeaweedFS's own test volume (weed/storage/erasure_coding/1.dat, 1.idx). */
public final class EcTestVolumes {

    /** The block sizes SeaweedFS's ec_test.go uses. */
    public static final long TEST_LARGE_BLOCK = 10_000;
    public static final long TEST_SMALL_BLOCK = 100;
    public static final long ENCODE_TS_NS = 1_700_000_000_000_000_000L;

    private EcTestVolumes() {
    }

    public static Path fixtureDat() {
        return Fixtures.volumes().resolve("1.dat");
    }

    public static Path fixtureIdx() {
        return Fixtures.volumes().resolve("1.idx");
    }

    /** Encodes the fixture volume 1 into {@code dir} with the test block sizes. */
    public static EcWriter.Result encodeFixture(Path dir, int dataShards, int parityShards) throws IOException {
        return EcWriter.write(fixtureDat(), fixtureIdx(), new EcFiles(dir, "", 1),
                new EcLayout(dataShards, parityShards, TEST_LARGE_BLOCK, TEST_SMALL_BLOCK), IndexFormat.OFFSET4,
                        ENCODE_TS_NS);
    }

    /**
     * Encodes the fixture volume 1 into {@code dir} with SeaweedFS's real block sizes (all small rows at this size).
     */
    public static EcWriter.Result encodeFixtureRealBlocks(Path dir, String collection, int dataShards, int parityShards)
            throws IOException {
        return EcWriter.write(fixtureDat(), fixtureIdx(), new EcFiles(dir, collection, 1),
                EcLayout.of(dataShards, parityShards), IndexFormat.OFFSET4, ENCODE_TS_NS);
    }
}
