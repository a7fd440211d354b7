/**
 * When a thread that owns a UCX worker or an event loop polls and when it sleeps: one rule, {@link
 * org.seaweedfs.rdma.polling.IdlePoll}, set by one key, {@code idlePollMicros}. Imports nothing of this project.
 */
package org.seaweedfs.rdma.polling;
