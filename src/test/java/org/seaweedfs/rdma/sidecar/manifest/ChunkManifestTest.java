package org.seaweedfs.rdma.sidecar.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ChunkManifestTest {

    private static ChunkManifest parse(String json) {
        return ChunkManifest.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String refusal(String json) {
        return assertThrows(IllegalArgumentException.class, () -> parse(json)).getMessage();
    }

    @Test
    void chunksAreSortedByOffsetAndTileTheFile() {
        ChunkManifest m = parse("{\"name\":\"a.bin\",\"mime\":\"x/y\",\"size\":15,\"chunks\":["
                + "{\"fid\":\"3,0200000001\",\"offset\":10,\"size\":5},{\"fid\":\"3,0100000001\",\"offset\":0,"
                + "\"size\":10}]}");
        assertEquals("a.bin", m.name());
        assertEquals("x/y", m.mime());
        assertEquals(15, m.size());
        assertEquals(0, m.chunks().get(0).offset());
        assertEquals("3,0100000001", m.chunks().get(0).fid().toString());
    }

    @Test
    void gapsOverlapsWrongSizesAndTooManyChunksAreRefused() {
        assertTrue(refusal("{\"chunks\":[{\"fid\":\"3,0100000001\",\"offset\":1,\"size\":5}]}").contains("tile"));
        assertTrue(refusal("{\"chunks\":[{\"fid\":\"3,0100000001\",\"offset\":0,\"size\":5},"
                + "{\"fid\":\"3,0200000001\",\"offset\":4,\"size\":5}]}").contains("tile"));
        assertTrue(refusal("{\"size\":9,\"chunks\":[{\"fid\":\"3,0100000001\",\"offset\":0,\"size\":5}]}")
                .contains("size 9"));
        assertTrue(refusal("{\"chunks\":[{\"fid\":\"nope\",\"offset\":0,\"size\":5}]}").length() > 0);
        assertTrue(refusal("[1,2]").contains("not JSON"));
        StringBuilder many = new StringBuilder("{\"chunks\":[");
        for (int i = 0; i <= ChunkManifest.MAX_CHUNKS; i++) {
            many.append(i == 0 ? ""
                    : ",").append("{\"fid\":\"3,0100000001\",\"offset\":").append(i).append(",\"size\":1}");
        }
        assertTrue(refusal(many.append("]}").toString()).contains("more than " + ChunkManifest.MAX_CHUNKS));
    }
}
