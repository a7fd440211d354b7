package org.seaweedfs.rdma.volume;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Lays a {@link NewNeedle} out as a record, byte for byte as SeaweedFS's writer does (padding is zeros). */
public final class NeedleEncoder {

    private NeedleEncoder() {
    }

    /** The record's Size (body length) for the given version. */
    public static long size(NewNeedle n, int version) {
        if (version == SuperBlock.VERSION_1 || n.data().length == 0) {
            return n.data().length;
        }
        return NeedleLayout.DATA_SIZE_FIELD + n.data().length + metaLength(n);
    }

    /** The whole record, padding included, ready to be written (position 0, limit = record length). */
    public static ByteBuffer encode(NewNeedle n, int version) {
        SuperBlock.checkVersion(version, "new needle", 0);
        if (version == SuperBlock.VERSION_1 && n.flags() != 0) {
            throw new IllegalArgumentException("version 1 records carry only data, not flags 0x"
                    + Integer.toHexString(n.flags()));
        }
        long size = size(n, version);
        long length = NeedleLayout.recordLength(size, version);
        if (length > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("needle " + Long.toHexString(n.key()) + " is too large to encode: "
                    + size + " bytes");
        }
        ByteBuffer b = ByteBuffer.allocate((int) length);
        b.putInt(n.cookie()).putLong(n.key()).putInt((int) size);
        if (version != SuperBlock.VERSION_1 && size > 0) {
            b.putInt(n.data().length).put(n.data());
            putMeta(b, n);
        } else {
            b.put(n.data());
        }
        int crc = NeedleChecksum.of(n.data());
        b.putInt(n.legacyChecksum() ? NeedleChecksum.legacyForm(crc) : crc);
        if (version == SuperBlock.VERSION_3) {
            b.putLong(n.appendAtNs());
        }
        return b.position(0);
    }

    private static int metaLength(NewNeedle n) {
        int length = 1;
        length += n.name().isEmpty() ? 0 : 1 + utf8(n.name()).length;
        length += n.mime().isEmpty() ? 0 : 1 + utf8(n.mime()).length;
        length += n.lastModified() == 0 ? 0 : NeedleLayout.LAST_MODIFIED_SIZE;
        length += n.ttl().equals(Ttl.NONE) ? 0 : 2;
        length += n.pairs().isEmpty() ? 0 : 2 + utf8(n.pairs()).length;
        return length;
    }

    private static void putMeta(ByteBuffer b, NewNeedle n) {
        b.put((byte) n.flags());
        if (!n.name().isEmpty()) {
            byte[] name = utf8(n.name());
            b.put((byte) name.length).put(name);
        }
        if (!n.mime().isEmpty()) {
            byte[] mime = utf8(n.mime());
            b.put((byte) mime.length).put(mime);
        }
        if (n.lastModified() != 0) {
            b.put((byte) (n.lastModified() >>> 32)).putInt((int) n.lastModified());
        }
        if (!n.ttl().equals(Ttl.NONE)) {
            b.put((byte) n.ttl().count()).put((byte) n.ttl().unit());
        }
        if (!n.pairs().isEmpty()) {
            byte[] pairs = utf8(n.pairs());
            b.putShort((short) pairs.length).put(pairs);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
