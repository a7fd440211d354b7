package org.seaweedfs.rdma.ucx;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import org.openucx.jucx.ucp.UcpListener;

import java.net.InetSocketAddress;

/** A bound UCX listener; accepted channels are handed to its accept handler on the context that called listen. */
public final class UcxListener {

    private final UcxWorkerVerticle owner;
    private final InetSocketAddress address;
    final Handler<UcxChannel> onAccept;
    final Context acceptContext;
    private UcpListener listener; // owner thread only
    private volatile boolean open = true;

    UcxListener(UcxWorkerVerticle owner, UcpListener listener, Handler<UcxChannel> onAccept, Context acceptContext) {
        this.owner = owner;
        this.listener = listener;
        this.address = listener.getAddress();
        this.onAccept = onAccept;
        this.acceptContext = acceptContext;
    }

    /** The address actually bound (the real port when 0 was asked for). */
    public InetSocketAddress address() {
        return address;
    }

    public int port() {
        return address.getPort();
    }

    public boolean isOpen() {
        return open;
    }

    /** Stops accepting; channels already accepted stay open. */
    public Future<Void> close() {
        return owner.closeListener(this);
    }

    /** Owner thread. */
    void closeNow() {
        open = false;
        if (listener != null) {
            listener.close();
            listener = null;
        }
    }

    @Override
    public String toString() {
        return "UcxListener[" + address + (open ? "" : ", closed") + "]";
    }
}
