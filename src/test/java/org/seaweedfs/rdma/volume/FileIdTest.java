package org.seaweedfs.rdma.volume;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FileIdTest {

    @Test
    void parsesTheFormatDocExample() {
        FileId fid = FileId.parse("3,01637037d6");
        assertEquals(3, fid.volumeId());
        assertEquals(1, fid.key());
        assertEquals(0x637037d6, fid.cookie());
        assertEquals("3,01637037d6", fid.toString());
    }

    @ParameterizedTest
    @CsvSource({
            "1,01bb51ad02, 1, 1, bb51ad02",
            "43,01b1615a86, 43, 1, b1615a86",
            "7,ABCDEF0123456789deadbeef, 7, abcdef0123456789, deadbeef",
            "0,100000000, 0, 1, 00000000",
            "4294967295,ffffffffffffffffffffffff, 4294967295, ffffffffffffffff, ffffffff"})
    void parsesKeyAndCookieSplitAtTheLastEightHex(String vid, String hex, long volumeId, String key, String cookie) {
        FileId fid = FileId.parse(vid + "," + hex);
        assertEquals(volumeId, fid.volumeId());
        assertEquals(Long.parseUnsignedLong(key, 16), fid.key());
        assertEquals((int) Long.parseLong(cookie, 16), fid.cookie());
    }

    @Test
    void formatStripsLeadingZeroBytesOfTheKeyOnly() {
        assertEquals("5,0100000000", new FileId(5, 1, 0).toString());
        assertEquals("5,0abc00000001", new FileId(5, 0xabc, 1).toString());
        assertEquals("5,ffffffffffffffff0000000a", new FileId(5, -1L, 10).toString());
        assertEquals("5,1000000000000000ffffffff", new FileId(5, 1L << 60, -1).toString());
        // Key 0 formats to the cookie alone, as SeaweedFS does (and, as there, it does not parse back).
        assertEquals("5,00000007", new FileId(5, 0, 7).toString());
    }

    @Test
    void randomRoundTrips() {
        Random random = new Random(42);
        for (int i = 0; i < 10_000; i++) {
            long key = switch (i % 3) {
                case 0 -> random.nextLong();
                case 1 -> random.nextInt(1 << 20) + 1;
                default -> (random.nextLong() >>> random.nextInt(64)) | 1;
            };
            FileId fid = new FileId(random.nextLong() >>> 32, key, random.nextInt());
            assertEquals(fid, FileId.parse(fid.toString()));
            assertEquals(fid, FileId.parsePath(fid.volumeId(), fid.keyCookieHex()));
        }
    }

    @Test
    void oddLengthKeyAndUpperCaseAreAccepted() {
        assertEquals(new FileId(1, 0x123, 0xabcdef01), FileId.parse("1,123ABCDEF01"));
    }

    @Test
    void deltaIsAddedToTheKeyInUrlPaths() {
        assertEquals(new FileId(3, 1 + 5, 0x637037d6), FileId.parsePath(3, "01637037d6_5"));
        assertEquals(new FileId(3, 1, 0x637037d6), FileId.parsePath(3, "01637037d6"));
        assertEquals(new FileId(3, -1L, 0), FileId.parsePath(3, "fffffffffffffffe00000000_1"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "''                               | empty",
            "3                                | no ','",
            "x,01637037d6                     | volume id 'x'",
            ",01637037d6                      | volume id ''",
            "-3,01637037d6                    | volume id '-3'",
            "18446744073709551616,01637037d6  | exceeds 64 bits",
            "3,637037d6                       | more than 8 hex",
            "3,                               | more than 8 hex",
            "3,0123456789abcdef0123456789     | exceed 24 hex",
            "3,01637037g6                     | 'g' is not a hex digit",
            "3,01637037d6_1                   | '_' is not a hex digit",
            "3,０1637037d6                    | '０' is not a hex digit",
            "3,+1637037d6                     | '+' is not a hex digit",
            "٣,01637037d6                     | volume id '٣'"})
    void parseErrorsNameTheProblem(String text, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FileId.parse(text));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "01637037d6_x           | delta 'x' is not a decimal",
            "01637037d6_-1          | delta '-1' is not a decimal",
            "01637037d6_١           | delta '١' is not a decimal",
            "01637037d6_99999999999999999999 | too large",
            "ffffffffffffffff00000000_1 | overflows 64 bits",
            "_5                     | more than 8 hex"})
    void pathErrorsNameTheProblem(String text, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FileId.parsePath(3, text));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void urlPathsTakeAnEmptyDeltaAndTheLastUnderscoreAsSeaweedFsDoes() {
        assertEquals(new FileId(3, 1, 0x637037d6), FileId.parsePath(3, "01637037d6_"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FileId.parsePath(3, "01637037d6_1_2"));
        assertTrue(e.getMessage().contains("'_' is not a hex digit"), e.getMessage());
    }

    @Test
    void aFileIdsVolumeIdReadsAsARequestVolumeIdWhateverItsLength() {
        for (String vid : new String[] {"3", "4294967299", "000000000000000003", "0000000000000000003",
                "18446744073709551615", "4294967295"}) {
            FileId id = FileId.parse(vid + ",01637037d6");
            assertEquals(new FileId(FileId.parseRequestVolumeId(vid), 1, 0x637037d6), id, vid);
        }
    }

    @Test
    void requestVolumeIdsAreU64DecimalsKeptToTheirLow32Bits() {
        assertEquals(3, FileId.parseRequestVolumeId("3"));
        assertEquals(3, FileId.parseRequestVolumeId("00000000000000000003"));
        assertEquals(3, FileId.parseRequestVolumeId("4294967299"));
        assertEquals(0xFFFF_FFFFL, FileId.parseRequestVolumeId("18446744073709551615"));
        for (String bad : new String[] {"", "18446744073709551616", "-3", "+3", "3a", "٣"}) {
            assertThrows(IllegalArgumentException.class, () -> FileId.parseRequestVolumeId(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> FileId.parseRequestVolumeId(null));
    }

    @Test
    void plainFileIdsKeepTheirVolumeIdsLow32BitsAsSeaweedFsParseFileIdFromStringDoes() {
        assertEquals(new FileId(3, 1, 0x637037d6), FileId.parse("4294967299,01637037d6"));
        assertEquals(new FileId(99999999999L & 0xFFFF_FFFFL, 1, 0x02030405), FileId.parse("99999999999,0102030405"));
        assertEquals(new FileId(3, 1, 0x637037d6), FileId.parse("0003,01637037d6"));
    }

    @Test
    void volumeIdRangeIsChecked() {
        assertThrows(IllegalArgumentException.class, () -> new FileId(-1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new FileId(1L << 32, 1, 1));
        assertEquals(4294967295L, FileId.parseVolumeId("4294967295"));
        assertThrows(IllegalArgumentException.class, () -> FileId.parseVolumeId(null));
    }
}
