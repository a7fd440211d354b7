package org.seaweedfs.rdma.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.volume.FileId;

/** A readMany frame written entry by entry reads back as the same needles and failures, whatever their sizes. */
class NeedleFrameTest {

    @Test
    void needlesOfAnySizeAndFailuresReadBackInOrder() {
        Random random = new Random(42);
        int count = 300;
        List<String> fids = new ArrayList<>();
        List<byte[]> bodies = new ArrayList<>();
        NeedleFrame.Writer writer = new NeedleFrame.Writer(count, 64L << 20);
        for (int i = 0; i < count; i++) {
            FileId fid = new FileId(3, i + 1, 0x1234);
            fids.add(fid.toString());
            if (i % 7 == 3) {
                bodies.add(null);
                writer.failure(404, "not found: " + fid);
                continue;
            }
            // mostly alike, now and then far larger or empty: the frame's room guesses are wrong both ways
            int size = i % 50 == 10 ? 200_000 : i % 11 == 0 ? 0 : 4096 + random.nextInt(64);
            byte[] body = new byte[size];
            random.nextBytes(body);
            bodies.add(body);
            Buffer whole = Buffer.buffer(body);
            List<Buffer> chunks = size > 100 ? List.of(whole.slice(0, 100), whole.slice(100, size)) : List.of(whole);
            NeedleStat stat = new NeedleStat(fid, size, 0x0102abcd, "n" + i + ".bin", "", 1_700_000_000L + i,
                    Map.of(), false, false, "rdma");
            writer.needle(stat, chunks);
        }
        List<NeedleResult> results = NeedleFrame.read(writer.finish(), fids);
        assertEquals(count, results.size());
        for (int i = 0; i < count; i++) {
            NeedleResult r = results.get(i);
            assertEquals(fids.get(i), r.fid());
            if (bodies.get(i) == null) {
                assertFalse(r.succeeded());
                assertEquals(404, r.failure().code());
                continue;
            }
            Needle n = r.orThrow();
            assertArrayEquals(bodies.get(i), n.body().getBytes(), "entry " + i);
            assertEquals("n" + i + ".bin", n.name());
            assertEquals(1_700_000_000L + i, n.lastModified());
            assertEquals("0102abcd", n.etag());
        }
    }
}
