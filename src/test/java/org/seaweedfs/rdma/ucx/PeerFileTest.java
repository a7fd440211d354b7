package org.seaweedfs.rdma.ucx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A same-host peer's file mapped here: only the file named, only while held, and never fatal when cut under us. */
class PeerFileTest {

    private static final int PAGE = 4096;

    @TempDir
    Path dir;
    private Path file;
    private byte[] content;
    private long device;
    private long inode;

    @BeforeEach
    void writeFile() throws IOException {
        assertTrue(SigbusGuard.active(), "the SIGBUS guard is built and loaded (gcc at build time)");
        content = new byte[4 * PAGE];
        new Random(7).nextBytes(content);
        file = dir.resolve("3.dat");
        Files.write(file, content);
        device = ((Number) Files.getAttribute(file, "unix:dev")).longValue();
        inode = ((Number) Files.getAttribute(file, "unix:ino")).longValue();
    }

    @Test
    void theRangeOfTheNamedFileIsMappedAtItsFirstUse() {
        PeerFile range = new PeerFile(file.toString(), device, inode, PAGE, 2 * PAGE);
        range.hold();
        assertFalse(range.isMapped(), "nothing is mapped before a view asks");
        assertNull(range.take(PAGE, 0, 10), "a region of another length is not this range");
        assertFalse(range.isMapped());
        ByteBuffer whole = range.take(2 * PAGE, 0, 2 * PAGE);
        assertNotNull(whole);
        assertTrue(range.isMapped());
        assertArrayEquals(Arrays.copyOfRange(content, PAGE, 3 * PAGE), bytes(whole));
        ByteBuffer part = range.take(2 * PAGE, 100, 50);
        assertArrayEquals(Arrays.copyOfRange(content, PAGE + 100, PAGE + 150), bytes(part), "mapped once, sliced");
        assertNull(range.take(2 * PAGE, 2 * PAGE - 10, 20), "past the range");
        range.viewReleased();
        range.viewReleased();
        assertTrue(range.isMapped(), "still held");
        range.release();
        assertFalse(range.isMapped(), "unmapped with its last holder");
    }

    @Test
    void anotherFileAShorterOneOrNoneIsNotMapped() throws IOException {
        assertRefused(new PeerFile(file.toString(), device, inode + 1, 0, PAGE), "another inode");
        assertRefused(new PeerFile(file.toString(), device + 1, inode, 0, PAGE), "another device");
        assertRefused(new PeerFile(file.toString(), device, inode, PAGE, PAGE * 4), "past the file's end");
        assertRefused(new PeerFile(dir.resolve("4.dat").toString(), device, inode, 0, PAGE), "no such file");
        assertRefused(new PeerFile(file.toString(), device, inode, 0, Integer.MAX_VALUE + 1L), "longer than one view");
        // A path renamed over (what compaction does) names another file: the old range is refused.
        Path replacement = dir.resolve("3.cpd");
        Files.write(replacement, content);
        Files.move(replacement, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertRefused(new PeerFile(file.toString(), device, inode, 0, PAGE), "a file renamed over the path");
    }

    @Test
    void aViewKeepsTheMappingPastItsLastHolderAndNoNewViewIsMade() {
        PeerFile range = new PeerFile(file.toString(), device, inode, 0, PAGE);
        range.hold();
        ByteBuffer view = range.take(PAGE, 0, PAGE);
        range.release();
        assertTrue(range.isMapped(), "the view still reads it");
        assertEquals(content[100], view.get(100));
        assertNull(range.take(PAGE, 0, PAGE), "no new views once no holder is left");
        assertFalse(range.mapsHere(PAGE));
        range.viewReleased();
        assertFalse(range.isMapped(), "unmapped with the last view");
    }

    @Test
    void aFileCutUnderTheMappingReadsZerosAndTheProcessLives() throws IOException {
        PeerFile range = new PeerFile(file.toString(), device, inode, 0, 4 * PAGE);
        range.hold();
        assertTrue(range.mapsHere(4 * PAGE));
        ByteBuffer mapped = range.take(4 * PAGE, 0, 4 * PAGE);
        assertEquals(content[3 * PAGE + 5], mapped.get(3 * PAGE + 5));
        long faults = SigbusGuard.faults();
        try (FileChannel dat = FileChannel.open(file, StandardOpenOption.WRITE)) {
            dat.truncate(PAGE);
        }
        byte[] lost = new byte[PAGE];
        mapped.get(2 * PAGE, lost);
        assertArrayEquals(new byte[PAGE], lost, "a page past the new end reads as zeros");
        assertTrue(SigbusGuard.faults() > faults, "the guard replaced the lost page");
        assertEquals(content[7], mapped.get(7), "the bytes still in the file are still there");
        range.viewReleased();
        range.release();
        assertFalse(range.isMapped());
    }

    private static void assertRefused(PeerFile range, String why) {
        range.hold();
        assertFalse(range.mapsHere(range.length()), why);
        assertNull(range.take(range.length(), 0, 1), why + ", asked again");
        assertFalse(range.isMapped(), why);
        range.release();
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
