package org.seaweedfs.rdma.client;

/**
 * Why a {@link NeedleClient} call failed. Both clients fail with it alike: {@link #kind()} says what went wrong and
 * {@link #code()} is the code the event bus answers with ({@code message.fail(code, text)}), the message its text.
 */
public final class NeedleException extends RuntimeException {

    /** The kinds of failure, each with its event-bus code. */
    public enum Kind {
        /**
         * A malformed fid, offset or length, or a needle above {@code sidecar.maxNeedleBytes} (text "too large: ...").
         */
        BAD_REQUEST(400),
        NOT_FOUND(404),
        /** The offset lies past the end of the needle. */
        RANGE_NOT_SATISFIABLE(416),
        /** The stored data failed its checksum (or its record did not parse): never served. */
        CORRUPT(502),
        /** No path could serve the read (agent down and no fallback, a bound reached, no sidecar on the event bus). */
        UNAVAILABLE(503),
        TIMEOUT(504),
        /** Anything else (a bug, an unexpected error). */
        INTERNAL(500);

        public final int code;

        Kind(int code) {
            this.code = code;
        }

        /** The kind an event-bus failure code stands for; INTERNAL for a code outside the contract. */
        public static Kind ofCode(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            return INTERNAL;
        }
    }

    private final Kind kind;

    public NeedleException(Kind kind, String message) {
        this(kind, message, null);
    }

    public NeedleException(Kind kind, String message, Throwable cause) {
        super(message, cause, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    /** The event-bus failure code (HTTP-like). */
    public int code() {
        return kind.code;
    }

    /** Whether the same read may succeed if tried again later (UNAVAILABLE, TIMEOUT). */
    public boolean retriable() {
        return kind == Kind.UNAVAILABLE || kind == Kind.TIMEOUT;
    }
}
