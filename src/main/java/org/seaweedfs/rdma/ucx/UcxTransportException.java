package org.seaweedfs.rdma.ucx;

/**
 * A UCX operation failed because of the transport: the peer went away, the endpoint or worker is closed, or UCX
 * reported an error. Always retriable (on a new channel); the message says what happened and with which peer.
 */
public final class UcxTransportException extends RuntimeException {

    private final int ucsStatus;

    public UcxTransportException(String message) {
        this(message, 0);
    }

    public UcxTransportException(String message, int ucsStatus) {
        super(message, null, false, false);
        this.ucsStatus = ucsStatus;
    }

    public UcxTransportException(String message, Throwable cause) {
        super(message, cause, false, false);
        this.ucsStatus = 0;
    }

    /** The UCS status UCX reported (negative), or 0 when the failure was detected here. */
    public int ucsStatus() {
        return ucsStatus;
    }

    public boolean retriable() {
        return true;
    }
}
