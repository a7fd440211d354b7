package org.seaweedfs.rdma.client;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.seaweedfs.rdma.sidecar.NeedleStat;

/**
 * The reply of {@code seaweedfs.needle.readMany}: one binary frame with an entry per fid asked for, in request order
 * (all integers big-endian, strings UTF-8 behind an unsigned 16-bit length):
 * <pre>
 * frame := "SWNF" version:u8(=1) count:u32 entry{count}
 * entry := status:u16 length:u32 meta? bytes[length]
 * meta  := (status 200 only) etag:str content-type:str name:str source:str last-modified:i64
 * </pre>
 * Status 200: {@code bytes} is the needle (decompressed), its length the needle's size; any other status (the
 * event bus's codes: 400, 404, 502, 503, 504, 500) carries the failure's text as {@code bytes}.
 */
public final class NeedleFrame {

    private static final byte[] MAGIC = "SWNF".getBytes(StandardCharsets.US_ASCII);
    private static final int VERSION = 1;
    private static final int HEADER = MAGIC.length + 1 + 4;
    private static final int OK = 200;

    private NeedleFrame() {
    }

    /**
     * Writes a frame, entry by entry, into one buffer (the reply's; the needles' bytes are copied into it once). When
     * it must grow it makes room for the entries still to come as large as the one at hand (up to the bound given),
     * so a frame of many like needles is copied once or twice, not at every doubling.
     */
    public static final class Writer {
        /** Bytes an entry takes beside its body, as first guessed. */
        private static final int ENTRY_GUESS = 64;
        private final int entries;
        private final long maxBytes;
        private Buffer frame;
        private long capacity;
        private int count;

        /**
         * @param entries  entries the frame will hold
         * @param maxBytes the frame's bound (room is never made beyond it for entries not yet written)
         */
        public Writer(int entries, long maxBytes) {
            this.entries = entries;
            this.maxBytes = maxBytes;
            this.capacity = Math.max(HEADER, Math.min(maxBytes, HEADER + (long) entries * ENTRY_GUESS));
            frame = Buffer.buffer((int) capacity).appendBytes(MAGIC).appendByte((byte) VERSION).appendInt(0);
        }

        /** A needle, its bytes copied from {@code chunks}. */
        public Writer needle(NeedleStat stat, List<Buffer> chunks) {
            long length = 0;
            for (Buffer c : chunks) {
                length += c.length();
            }
            String etag = stat.etag();
            String type = NeedleWire.contentType(stat);
            String source = NeedleWire.source(stat);
            room(2 + 4 + 4 * 2 + etag.length() + type.length() + 3L * stat.name().length() + source.length() + 8
                    + length);
            frame.appendUnsignedShort(OK).appendInt((int) length);
            string(etag);
            string(type);
            string(stat.name());
            string(source);
            frame.appendLong(stat.lastModified());
            for (int i = 0; i < chunks.size(); i++) {
                frame.appendBuffer(chunks.get(i));
            }
            count++;
            return this;
        }

        /** Makes room for an entry of at most {@code bytes} and, when it must grow, for the rest like it. */
        private void room(long bytes) {
            long needed = frame.length() + bytes;
            if (needed <= capacity) {
                return;
            }
            long rest = frame.length() + bytes * (entries - count);
            long grown = Math.max(needed, Math.min(Math.max(rest, 2 * capacity), maxBytes));
            if (grown > Integer.MAX_VALUE - 8) {
                return; // beyond what one buffer holds: the append fails as it would have
            }
            capacity = grown;
            frame = Buffer.buffer((int) grown).appendBuffer(frame);
        }

        /** A failure of one fid. */
        public Writer failure(int code, String text) {
            byte[] bytes = String.valueOf(text).getBytes(StandardCharsets.UTF_8);
            frame.appendUnsignedShort(code).appendInt(bytes.length).appendBytes(bytes);
            count++;
            return this;
        }

        /** Bytes written so far. */
        public int length() {
            return frame.length();
        }

        public Buffer finish() {
            frame.setInt(MAGIC.length + 1, count);
            return frame;
        }

        private void string(String value) {
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            int n = Math.min(bytes.length, 0xFFFF); // names are at most 255 bytes on disk
            frame.appendUnsignedShort(n).appendBytes(bytes, 0, n);
        }
    }

    /**
     * The entries of {@code frame} as results for {@code fids}; each needle's body is a slice of the frame (no copy).
     * A frame of the wrong shape fails INTERNAL.
     */
    public static List<NeedleResult> read(Buffer frame, List<String> fids) {
        try {
            return parse(frame, fids);
        } catch (IndexOutOfBoundsException e) {
            throw malformed("it ends inside an entry");
        }
    }

    private static List<NeedleResult> parse(Buffer frame, List<String> fids) {
        if (frame.length() < HEADER || !java.util.Arrays.equals(frame.getBytes(0, MAGIC.length), MAGIC)) {
            throw malformed("no SWNF header");
        }
        if (frame.getUnsignedByte(MAGIC.length) != VERSION) {
            throw malformed("version " + frame.getUnsignedByte(MAGIC.length));
        }
        long count = frame.getUnsignedInt(MAGIC.length + 1);
        if (count != fids.size()) {
            throw malformed(count + " entries for " + fids.size() + " fids");
        }
        List<NeedleResult> results = new ArrayList<>(fids.size());
        int at = HEADER;
        for (String fid : fids) {
            int status = frame.getUnsignedShort(at);
            long length = frame.getUnsignedInt(at + 2);
            at += 6;
            if (status != OK) {
                String text = frame.getString(at, Math.toIntExact(at + length));
                results.add(NeedleResult.failed(fid, new NeedleException(NeedleException.Kind.ofCode(status), text)));
                at += (int) length;
                continue;
            }
            String[] strings = new String[4];
            for (int i = 0; i < strings.length; i++) {
                int n = frame.getUnsignedShort(at);
                strings[i] = frame.getString(at + 2, at + 2 + n);
                at += 2 + n;
            }
            long lastModified = frame.getLong(at);
            at += 8;
            int end = Math.toIntExact(at + length);
            if (end > frame.length()) {
                throw malformed("a needle runs past its end");
            }
            results.add(NeedleResult.of(new Needle(fid, frame.slice(at, end), strings[0], strings[1], strings[2],
                    lastModified, length, strings[3])));
            at = end;
        }
        if (at != frame.length()) {
            throw malformed((frame.length() - at) + " bytes after the last entry");
        }
        return results;
    }

    private static NeedleException malformed(String why) {
        return new NeedleException(NeedleException.Kind.INTERNAL, "malformed readMany frame: " + why);
    }
}
