package org.seaweedfs.rdma.volume.ec;

import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.volume.VolumeFormatException;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EcVolumeInfoTest {

    /** What SeaweedFS's SaveVolumeInfo writes (protojson, EmitUnpopulated, two-space indent). */
    private static final String SEAWEEDFS_VIF = """
            {
              "files": [],
              "version": 3,
              "replication": "",
              "bytesOffset": 0,
              "datFileSize": "2590912",
              "expireAtSec": "0",
              "readOnly": false,
              "ecShardConfig": {
                "dataShards": 6,
                "parityShards": 3,
                "encodeTsNs": "1717171717171717171"
              },
              "readOnlyCanDelete": false
            }""";

    @Test
    void readsWhatSeaweedFsWrites() {
        assertEquals(EcVolumeInfo.of(3, 2_590_912, 6, 3), parse(SEAWEEDFS_VIF));
    }

    @Test
    void withoutShardConfigIsTenPlusFour() {
        EcVolumeInfo info = parse("{\"version\":3,\"datFileSize\":\"100\"}");
        assertEquals(10, info.dataShards());
        assertEquals(4, info.parityShards());
        assertFalse(info.hasShardConfig());
        assertEquals(0, parse("{\"version\":2}").datFileSize(), "old volumes: unknown size");
    }

    @Test
    void acceptsProtoNamesAndNumbers() {
        assertEquals(EcVolumeInfo.of(3, 77, 12, 4),
                parse("{\"version\":3,\"dat_file_size\":77,\"ec_shard_config\":{\"data_shards\":12,"
                        + "\"parity_shards\":4}}"));
    }

    @Test
    void roundTrips() {
        EcVolumeInfo info = EcVolumeInfo.of(2, 123_456_789_012L, 10, 4);
        String json = new String(info.toJson(42), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"datFileSize\": \"123456789012\""), json);
        assertTrue(json.contains("\"encodeTsNs\": \"42\""), json);
        assertEquals(info, EcVolumeInfo.parse(info.toJson(42), "x.vif"));
    }

    @Test
    void badOrMissingFieldsNameTheFileAndField() {
        assertField("version", "{\"datFileSize\":\"1\"}");
        assertField("version", "{\"version\":7}");
        assertField("datFileSize", "{\"version\":3,\"datFileSize\":\"12x\"}");
        assertField("datFileSize", "{\"version\":3,\"datFileSize\":\"-5\"}");
        assertField("datFileSize", "{\"version\":3,\"datFileSize\":1.5}");
        assertField("ecShardConfig.dataShards", "{\"version\":3,\"ecShardConfig\":{\"parityShards\":4}}");
        assertField("ecShardConfig.dataShards",
                "{\"version\":3,\"ecShardConfig\":{\"dataShards\":0,\"parityShards\":4}}");
        assertField("ecShardConfig", "{\"version\":3,\"ecShardConfig\":{\"dataShards\":30,\"parityShards\":4}}");
        assertField("ecShardConfig", "{\"version\":3,\"ecShardConfig\":[]}");
        assertField("(document)", "{\"version\":3");
        assertField("(document)", "[]");
        assertField("(document)", "{\"version\":3} {}");
    }

    private static void assertField(String field, String json) {
        VolumeFormatException e = assertThrows(VolumeFormatException.class, () -> parse(json), json);
        assertEquals(field, e.field(), e.getMessage());
        assertEquals("9.vif", e.source());
    }

    private static EcVolumeInfo parse(String json) {
        return EcVolumeInfo.parse(json.getBytes(StandardCharsets.UTF_8), "9.vif");
    }
}
