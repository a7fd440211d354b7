/**
 * When a thread that owns a UCX worker or an event loop polls, spins, yields and sleeps: one policy, {@link
 * org.seaweedfs.rdma.polling.PollingPolicy}, holding every such decision and constant, set by one key,
 * {@code idlePollMicros}. Imports nothing of this project.
 */
package org.seaweedfs.rdma.polling;
