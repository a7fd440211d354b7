package org.seaweedfs.rdma.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SyncEntriesTest {
    @Test
    void writerAndReaderAgreeAndFollowTheIdxReplayRule() {
        SyncEntryWriter writer = new SyncEntryWriter(10);
        assertTrue(writer.append(-1L, 8, 100));
        assertTrue(writer.append(2, 0, 100));
        assertTrue(writer.append(3, 16, -1));
        assertTrue(writer.append(4, 24, 0));
        SyncEntries message = writer.toMessage(7, 1, 5, 0, 64, false);
        assertEquals(0, writer.count());
        assertEquals(4, message.entryCount());

        SyncEntryReader reader = message.reader();
        assertTrue(reader.next());
        assertEquals(-1L, reader.key());
        assertEquals(8, reader.offset());
        assertEquals(100, reader.size());
        assertTrue(reader.isLive());
        assertTrue(reader.next());
        assertFalse(reader.isLive(), "offset 0 deletes");
        assertTrue(reader.next());
        assertFalse(reader.isLive(), "size 0xFFFFFFFF deletes");
        assertTrue(reader.next());
        assertTrue(reader.isLive(), "size 0 is live");
        assertFalse(reader.next());
        assertFalse(reader.next());
        assertThrows(IllegalStateException.class, reader::key);
        assertThrows(IllegalStateException.class, () -> new SyncEntryReader(new byte[0]).key());
    }

    @Test
    void writerStopsAtItsCapacity() {
        SyncEntryWriter writer = new SyncEntryWriter(3000);
        for (int i = 0; i < 3000; i++) {
            assertTrue(writer.append(i, 8L * i, i));
        }
        assertTrue(writer.isFull());
        assertFalse(writer.append(1, 1, 1));
        SyncEntryReader reader = new SyncEntryReader(writer.toPacked());
        for (int i = 0; i < 3000; i++) {
            assertTrue(reader.next());
            assertEquals(i, reader.key());
            assertEquals(8L * i, reader.offset());
        }
        assertFalse(reader.next());
    }

    @Test
    void splitPushesCoversTheIdxRangeContiguouslyWithinTheFrameBound() {
        ControlCodec codec = new ControlCodec(ControlCodec.MIN_MAX_FRAME_BYTES);
        int total = 1000;
        SyncEntryWriter writer = new SyncEntryWriter(total);
        for (int i = 0; i < total; i++) {
            writer.append(i, 8L * (i + 1), 1);
        }
        List<SyncEntries> frames = SyncEntries.splitPushes(3, 9, 170, 17, writer.toPacked(),
                codec.maxSyncEntriesPerFrame());
        assertEquals((total + codec.maxSyncEntriesPerFrame() - 1) / codec.maxSyncEntriesPerFrame(), frames.size());
        long position = 170;
        long key = 0;
        for (int f = 0; f < frames.size(); f++) {
            SyncEntries frame = frames.get(f);
            assertEquals(0, frame.requestId());
            assertEquals(position, frame.fromPosition());
            assertEquals(f < frames.size() - 1, frame.more());
            assertEquals(frame, codec.decode(codec.encode(frame)));
            for (SyncEntryReader reader = frame.reader(); reader.next(); ) {
                assertEquals(key++, reader.key());
            }
            position = frame.toPosition();
        }
        assertEquals(total, key);
        assertEquals(170 + 17L * total, position);
    }

    @Test
    void splitOfNothingIsOneEmptyFrame() {
        List<SyncEntries> frames = SyncEntries.splitPushes(3, 9, 32, 16, new byte[0], 10);
        assertEquals(List.of(new SyncEntries(0, 3, 9, 32, 32, false, new byte[0])), frames);
    }
}
