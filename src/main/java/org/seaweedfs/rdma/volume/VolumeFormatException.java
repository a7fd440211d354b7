package org.seaweedfs.rdma.volume;

/**
 * A volume file (or a buffer holding part of one) does not follow SeaweedFS's format: truncated, corrupt,
 * or a field out of range. The message names the file, the byte offset and the field.
 */
public final class VolumeFormatException extends RuntimeException {

    private final String source;
    private final long offset;
    private final String field;

    public VolumeFormatException(String source, long offset, String field, String problem) {
        this(source, offset, field, problem, null);
    }

    public VolumeFormatException(String source, long offset, String field, String problem, Throwable cause) {
        super(source + " at offset " + offset + ": " + field + ": " + problem, cause);
        this.source = source;
        this.offset = offset;
        this.field = field;
    }

    /** The file (or buffer description) the problem was found in. */
    public String source() {
        return source;
    }

    /** Byte offset in the file where the faulty structure (record, entry, super block) starts. */
    public long offset() {
        return offset;
    }

    public String field() {
        return field;
    }
}
