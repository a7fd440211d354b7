package org.seaweedfs.rdma.client;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.ReplyException;
import java.util.List;
import org.seaweedfs.rdma.sidecar.ByteChunks;
import org.seaweedfs.rdma.sidecar.NeedleContent;
import org.seaweedfs.rdma.sidecar.NeedleContentType;
import org.seaweedfs.rdma.sidecar.NeedleStat;
import org.seaweedfs.rdma.sidecar.ReadFailure;
import org.seaweedfs.rdma.sidecar.ReadPath;
import org.seaweedfs.rdma.volume.FileId;

/**
 * The one mapping between the read path's types and what clients see, shared by the event-bus API (which answers
 * with it) and both {@link NeedleClient}s (so they return the same values and fail the same way): the reply
 * headers of a read, the stat JSON, the failure codes and texts, the request checks.
 */
public final class NeedleWire {

    public static final String ETAG = "etag";
    public static final String CONTENT_TYPE = "content-type";
    public static final String NAME = "name";
    public static final String LAST_MODIFIED = "last-modified";
    public static final String SIZE = "size";
    public static final String SOURCE = "source";
    /** {@link #SOURCE} when any path but RDMA served the bytes. */
    public static final String FALLBACK = "fallback";

    private NeedleWire() {
    }

    /** Parses a fid as the event-bus API does; BAD_REQUEST "fid: ..." when malformed. */
    public static FileId fileId(Object fid) {
        if (!(fid instanceof String text)) {
            throw new NeedleException(NeedleException.Kind.BAD_REQUEST, "fid: missing or not a string");
        }
        try {
            return FileId.parse(text);
        } catch (IllegalArgumentException e) {
            throw new NeedleException(NeedleException.Kind.BAD_REQUEST, "fid: " + e.getMessage());
        }
    }

    /** The request's offset or length check; BAD_REQUEST when {@code value} is below {@code min}. */
    public static long atLeast(String name, long value, long min) {
        if (value < min) {
            throw new NeedleException(NeedleException.Kind.BAD_REQUEST,
                    name + ": must be a non-negative integer, got " + value);
        }
        return value;
    }

    /** The bytes out of (possibly pooled) content, as one heap buffer the caller owns; the content is released. */
    public static Buffer takeBody(NeedleContent content) {
        try {
            List<Buffer> chunks = content.chunks();
            if (chunks.size() == 1) { // most needles: one heap copy, nothing more
                Buffer only = chunks.get(0);
                return Buffer.buffer(only.length()).appendBuffer(only);
            }
            return ByteChunks.of(chunks).copy();
        } finally {
            content.release();
        }
    }

    /** The {@code content-type} a read answers with. */
    public static String contentType(NeedleStat stat) {
        String type = NeedleContentType.of(stat, stat.name());
        return type == null ? NeedleContentType.DEFAULT : type;
    }

    /** The {@code source} a read answers with: {@code rdma} or {@code fallback}. */
    public static String source(NeedleStat stat) {
        return ReadPath.RDMA.is(stat.source()) ? ReadPath.RDMA.wire : FALLBACK;
    }

    /** A read's result as the in-process client gives it: the same values the event-bus headers carry. */
    public static Needle needle(String fid, NeedleStat stat, Buffer body) {
        return new Needle(fid, body, stat.etag(), contentType(stat), stat.name(), stat.lastModified(), stat.size(),
                source(stat));
    }

    /** A read's result from an event-bus reply's headers and body. */
    public static Needle needle(String fid, MultiMap headers, Buffer body) {
        return new Needle(fid, body, headers.get(ETAG), headers.get(CONTENT_TYPE), headers.get(NAME),
                number(headers, LAST_MODIFIED), number(headers, SIZE), headers.get(SOURCE));
    }

    private static long number(MultiMap headers, String name) {
        String v = headers.get(name);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new NeedleException(NeedleException.Kind.INTERNAL, "reply header " + name + " is not a number: " + v);
        }
    }

    /** The metadata as both clients give it (and the event bus's stat reply carries as JSON). */
    public static NeedleInfo info(NeedleStat s) {
        return new NeedleInfo(s.fid().toString(), s.size(), s.etag(), s.name(), s.mime(),
                NeedleContentType.of(s, s.name()), s.lastModified(), s.compressed(), s.chunkManifest(), s.pairs(),
                s.source());
    }

    /**
     * A read path's failure as clients see it: a {@link ReadFailure}'s kind (a needle above the size limit is a
     * BAD_REQUEST whose text starts "too large: ", as the event-bus contract has no 413), an invalid argument
     * BAD_REQUEST, anything else INTERNAL. The event-bus API fails with this code and text.
     */
    public static NeedleException failure(Throwable cause) {
        if (cause instanceof NeedleException e) {
            return e;
        }
        if (cause instanceof ReadFailure rf) {
            if (rf.kind() == ReadFailure.Kind.TOO_LARGE) {
                return new NeedleException(NeedleException.Kind.BAD_REQUEST, "too large: " + rf.getMessage(), rf);
            }
            return new NeedleException(NeedleException.Kind.ofCode(rf.code()), rf.getMessage(), rf);
        }
        if (cause instanceof IllegalArgumentException) {
            return new NeedleException(NeedleException.Kind.BAD_REQUEST, cause.getMessage(), cause);
        }
        return new NeedleException(NeedleException.Kind.INTERNAL, String.valueOf(cause.getMessage()), cause);
    }

    /** An event-bus request's failure: the replier's code and text, or TIMEOUT / UNAVAILABLE (no sidecar). */
    static NeedleException failure(Throwable cause, String address) {
        if (!(cause instanceof ReplyException re)) {
            return failure(cause);
        }
        return switch (re.failureType()) {
            case RECIPIENT_FAILURE ->
                    new NeedleException(NeedleException.Kind.ofCode(re.failureCode()), re.getMessage(), re);
            case TIMEOUT -> new NeedleException(NeedleException.Kind.TIMEOUT,
                    "no reply from " + address + " in time: " + re.getMessage(), re);
            case NO_HANDLERS -> new NeedleException(NeedleException.Kind.UNAVAILABLE,
                    "no sidecar serves " + address + " on this event bus", re);
            default -> new NeedleException(NeedleException.Kind.INTERNAL, re.getMessage(), re);
        };
    }
}
