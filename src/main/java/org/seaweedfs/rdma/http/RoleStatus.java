package org.seaweedfs.rdma.http;

import io.vertx.core.json.JsonObject;

/**
 * A role's part of {@code /status} and {@code /ready} beside the sidecar's read path (the agent's, in a process that
 * runs one). Called from event loops: answers must be cheap snapshots, never a wait for the role's own context.
 */
public interface RoleStatus {

    /** The role's name as in {@code roles}. */
    String role();

    /** Whether the role serves now (the agent: its control listener is bound). */
    boolean ready();

    /** What {@code /status} shows under the role's name. */
    JsonObject status();
}
