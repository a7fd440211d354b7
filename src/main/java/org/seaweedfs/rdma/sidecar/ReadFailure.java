package org.seaweedfs.rdma.sidecar;

/** Why a read failed, with the HTTP-like code the APIs answer with. */
public final class ReadFailure extends RuntimeException {

    public enum Kind {
        BAD_REQUEST(400, false),
        NOT_FOUND(404, false),
        RANGE_NOT_SATISFIABLE(416, false),
        /** The needle is larger than {@code sidecar.maxNeedleBytes}: an answer about the needle, not a path fault. */
        TOO_LARGE(413, false),
        CORRUPT(502, false),
        UNAVAILABLE(503, true),
        TIMEOUT(504, true);

        public final int code;
        public final boolean retriable;

        Kind(int code, boolean retriable) {
            this.code = code;
            this.retriable = retriable;
        }
    }

    private final Kind kind;
    private final long needleSize;
    private final boolean overload;
    private final boolean gone;
    private final boolean nothingAsked;
    private final int retryAfterSeconds;

    public ReadFailure(Kind kind, String message) {
        this(kind, message, null);
    }

    public ReadFailure(Kind kind, String message, Throwable cause) {
        this(kind, message, cause, -1, false, false);
    }

    private ReadFailure(Kind kind, String message, Throwable cause, long needleSize, boolean overload, boolean gone) {
        this(kind, message, cause, needleSize, overload, gone, false, 0);
    }

    private ReadFailure(Kind kind, String message, Throwable cause, long needleSize, boolean overload, boolean gone,
                        boolean nothingAsked, int retryAfterSeconds) {
        super(message, cause, false, false);
        this.kind = kind;
        this.needleSize = needleSize;
        this.overload = overload;
        this.gone = gone;
        this.nothingAsked = nothingAsked;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public Kind kind() {
        return kind;
    }

    public int code() {
        return kind.code;
    }

    public boolean retriable() {
        return kind.retriable;
    }

    /**
     * Whether this sidecar refused the read at one of its own bounds (reads in flight, registered buffers, requests
     * outstanding to an agent): UNAVAILABLE to the client, but no sign that the agent or the transport is failing.
     */
    public boolean overload() {
        return overload;
    }

    /**
     * Whether the agent answered, but the bytes its needle map points at are no longer the needle (the .dat was cut
     * or rewritten in place and the agent has not reopened the volume yet), or the volume cannot give them right now
     * ({@link #volumeTrouble}): UNAVAILABLE and retriable (a new lookup answers once it has: where the needle is
     * now, or UNAVAILABLE while its record is still cut away; a re-list finds the volume's new epoch), but no sign
     * that the agent or the transport is failing.
     */
    public boolean dataGone() {
        return gone;
    }

    /**
     * Whether the path had nowhere to ask (the HTTP fallback with no master, no configured volume server and no
     * hint): UNAVAILABLE, but it says nothing about the needle, so an earlier failure is the one to report.
     */
    public boolean nothingAsked() {
        return nothingAsked;
    }

    /** When the client should try again (HTTP {@code Retry-After}, in seconds); 0 when no time can be given. */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** For RANGE_NOT_SATISFIABLE: the needle's length in the bytes the offset counts (for Content-Range); else -1. */
    public long needleSize() {
        return needleSize;
    }

    /** The HTTP-like code for any failure of a read: its own for a ReadFailure, else 500. */
    public static int codeOf(Throwable failure) {
        return failure instanceof ReadFailure rf ? rf.code() : 500;
    }

    public static ReadFailure notFound(String message) {
        return new ReadFailure(Kind.NOT_FOUND, message);
    }

    /** A needle of {@code size} bytes, above the {@code limit} this sidecar reads ({@code sidecar.maxNeedleBytes}). */
    public static ReadFailure tooLarge(Object fid, long size, long limit) {
        return new ReadFailure(Kind.TOO_LARGE, "needle " + fid + " of " + size
                + " bytes is larger than this sidecar reads (sidecar.maxNeedleBytes " + limit + ")");
    }

    /** A slice starting at {@code offset}, past the end of a needle of {@code size} bytes. */
    public static ReadFailure pastTheEnd(long offset, long size) {
        return new ReadFailure(Kind.RANGE_NOT_SATISFIABLE,
                "offset: " + offset + " is past the end of the needle (" + size + " bytes)", null, size, false, false);
    }

    public static ReadFailure corrupt(String message) {
        return new ReadFailure(Kind.CORRUPT, message);
    }

    public static ReadFailure unavailable(String message, Throwable cause) {
        return new ReadFailure(Kind.UNAVAILABLE, message, cause);
    }

    /** UNAVAILABLE because a bound of this sidecar is reached ({@link #overload()}). */
    public static ReadFailure overloaded(String message) {
        return overloaded(message, 0);
    }

    /** As {@link #overloaded(String)}, worth trying again after {@code retryAfterSeconds}. */
    public static ReadFailure overloaded(String message, int retryAfterSeconds) {
        return new ReadFailure(Kind.UNAVAILABLE, message, null, -1, true, false, false, retryAfterSeconds);
    }

    /** UNAVAILABLE because the path had nowhere to ask ({@link #nothingAsked()}). */
    public static ReadFailure nothingAsked(String message) {
        return new ReadFailure(Kind.UNAVAILABLE, message, null, -1, false, false, true, 0);
    }

    /** UNAVAILABLE because the sidecar is starting: worth trying again after {@code retryAfterSeconds}. */
    public static ReadFailure starting(String message, int retryAfterSeconds) {
        return new ReadFailure(Kind.UNAVAILABLE, message, null, -1, false, false, false, retryAfterSeconds);
    }

    /**
     * UNAVAILABLE because the volume cannot give the needle's bytes now, though its agent answers: an erasure-coded
     * volume short of the shards a read needs, or whose shard list changed under the read (a generation switch).
     * The volume's trouble, not the connection's ({@link #dataGone()}).
     */
    public static ReadFailure volumeTrouble(String message) {
        return new ReadFailure(Kind.UNAVAILABLE, message, null, -1, false, true);
    }

    /**
     * UNAVAILABLE because the needle's bytes are gone from where the agent's map says they are ({@link #dataGone()}).
     */
    public static ReadFailure dataGone(String message, Throwable cause) {
        return new ReadFailure(Kind.UNAVAILABLE, message, cause, -1, false, true);
    }
}
