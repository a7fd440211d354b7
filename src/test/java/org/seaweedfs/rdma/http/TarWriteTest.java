package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.internals.VertxInternals;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.testing.TarEntries;

/**
 * A tar stream's write references its members' memory rather than copying it: the bytes the socket would take are
 * the members' as they are at write time, in order with their headers, and the members are held until released.
 */
class TarWriteTest {

    /** A member in direct memory of its own, counting its releases. */
    private static final class Member implements NeedleContent {
        final ByteBuf[] memory;
        int releases;

        Member(byte[]... pieces) {
            memory = new ByteBuf[pieces.length];
            for (int i = 0; i < pieces.length; i++) {
                memory[i] = Unpooled.directBuffer(pieces[i].length).writeBytes(pieces[i]);
            }
        }

        @Override
        public NeedleStat stat() {
            throw new UnsupportedOperationException("not read by a write");
        }

        @Override
        public List<Buffer> chunks() {
            List<Buffer> chunks = new ArrayList<>();
            for (ByteBuf piece : memory) {
                chunks.add(VertxInternals.wrap(piece.slice()));
            }
            return chunks;
        }

        @Override
        public void release() {
            releases++;
        }
    }

    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    @Test
    void aWriteIsTheMembersMemoryInOrderWithTheirHeadersAndHoldsThemUntilReleased() {
        Random random = new Random(11);
        byte[] first = bytes(random, 4096);
        byte[] secondHead = bytes(random, 700);
        byte[] secondTail = bytes(random, 301);
        byte[] third = bytes(random, 0);
        Member one = new Member(first);
        Member two = new Member(secondHead, secondTail);
        Member three = new Member(third);
        byte[] scratch = new byte[TarMember.BLOCK];
        TarWrite write = new TarWrite(64); // smaller than its headers: the header memory grows

        TarMember.appendHeader(write.headers(), scratch, "1,01", first.length, 100);
        write.add(one);
        TarMember.appendPadding(write.headers(), first.length);
        TarMember.appendHeader(write.headers(), scratch, "1,02", 1001, 200);
        write.add(two);
        TarMember.appendPadding(write.headers(), 1001);
        TarMember.appendHeader(write.headers(), scratch, "1,03", 0, 300);
        write.add(three);
        TarMember.appendEnd(write.headers());

        assertEquals(3, write.members());
        Buffer out = write.buffer();
        assertEquals(write.length(), out.length());
        // Referenced, not copied: a change to a member's memory before the socket takes it is what the socket sees.
        first[0] ^= 1;
        one.memory[0].setByte(0, first[0]);
        List<TarEntries.Entry> entries = TarEntries.read(out.getBytes());
        assertEquals(List.of("1,01", "1,02", "1,03"), entries.stream().map(TarEntries.Entry::name).toList());
        assertArrayEquals(first, entries.get(0).data());
        byte[] second = new byte[1001];
        System.arraycopy(secondHead, 0, second, 0, 700);
        System.arraycopy(secondTail, 0, second, 700, 301);
        assertArrayEquals(second, entries.get(1).data());
        assertArrayEquals(third, entries.get(2).data());
        assertEquals(List.of(100L, 200L, 300L), entries.stream().map(TarEntries.Entry::mtime).toList());

        assertEquals(0, one.releases + two.releases + three.releases, "held until the write is released");
        ByteBuf headerMemory = VertxInternals.byteBuf(write.headers()).unwrap();
        assertTrue(headerMemory.refCnt() > 0);
        assertEquals(3, write.release());
        assertEquals(List.of(1, 1, 1), List.of(one.releases, two.releases, three.releases));
        assertEquals(0, headerMemory.refCnt(), "the header memory went back");
        for (Member m : List.of(one, two, three)) {
            for (ByteBuf piece : m.memory) {
                assertFalse(piece.refCnt() == 0, "a member's memory is its own to free");
                piece.release();
            }
        }
    }
}
