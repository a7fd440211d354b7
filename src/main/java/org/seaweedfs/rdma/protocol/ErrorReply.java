package org.seaweedfs.rdma.protocol;

/**
 * A failed request (echoing its id), or with request id 0 a failure not tied to a request (e.g. a frame whose
 * header could not be read). Named ErrorReply, not Error, so as not to shadow {@link java.lang.Error}.
 *
 * @param message   for humans and logs (at most 1024 bytes; may be empty)
 * @param retriable whether the same request may succeed if sent again (after the action the code names)
 */
public record ErrorReply(long requestId, ErrorCode code, String message, boolean retriable) implements ControlMessage {
    public ErrorReply {
        FieldCheck.requestId("Error", requestId, MessageType.ERROR);
        if (code == null) {
            throw FieldCheck.bad("Error.code", "is required");
        }
        if (message == null) {
            throw FieldCheck.bad("Error.message", "is required");
        }
        FieldCheck.optionalText("Error.message", message, ProtocolLimits.MAX_ERROR_MESSAGE_BYTES);
    }

    /** An error with the code's default retriable flag; a long message is cut to the bound instead of failing. */
    public static ErrorReply of(long requestId, ErrorCode code, String message) {
        return new ErrorReply(requestId, code, truncate(message == null ? "" : message), code.retriableByDefault());
    }

    @Override
    public MessageType type() {
        return MessageType.ERROR;
    }

    private static String truncate(String message) {
        int max = ProtocolLimits.MAX_ERROR_MESSAGE_BYTES;
        if (FieldCheck.utf8Length(message) <= max) {
            return message;
        }
        int end = Math.min(message.length(), max);
        while (FieldCheck.utf8Length(message.substring(0, end)) > max - 3) {
            end--;
            if (end > 0 && Character.isLowSurrogate(message.charAt(end))) {
                end--;
            }
        }
        return message.substring(0, end) + "...";
    }
}
