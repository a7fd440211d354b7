package org.seaweedfs.rdma.sidecar.ec;

import org.seaweedfs.rdma.sidecar.HedgeDelay;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which agents serving EC shards are late: an agent with shard gets (or lookups) out that has finished none of them
 * for longer than its {@link HedgeDelay} (the p99 of its recent ones). A stopped or hung agent is late once its delay
 * passes; an agent that is merely busy finishes gets all the time and is not. Thread-safe and wait-free: one
 * counter and one time per agent, touched by each get as it starts and lands.
 */
final class LateAgents {

    private final long deadlineNanos;
    private final ConcurrentMap<String, Gets> agents = new ConcurrentHashMap<>();

    /** One agent's shard gets. */
    static final class Gets {
        private final HedgeDelay delay;
        private final AtomicInteger out = new AtomicInteger();
        /** When the agent last made progress: its last get landed, or the first of those now out started. */
        private volatile long progressNanos;

        Gets(HedgeDelay delay) {
            this.delay = delay;
        }

        /** A get starts; returns its start time for {@link #landed}. */
        long started() {
            long now = System.nanoTime();
            if (out.getAndIncrement() == 0) {
                progressNanos = now;
            }
            return now;
        }

        void landed(long startNanos, boolean succeeded) {
            long now = System.nanoTime();
            if (succeeded) {
                delay.record(now - startNanos);
            }
            progressNanos = now;
            out.decrementAndGet();
        }

        /** How long the agent may make no progress with gets out before it is late. */
        long delayNanos() {
            return delay.nanos();
        }

        boolean late(long now) {
            return out.get() > 0 && now - progressNanos > delay.nanos();
        }
    }

    /** @param deadlineNanos a read's deadline, which bounds how late an agent is let to be */
    LateAgents(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    Gets of(String agent) {
        Gets known = agents.get(agent);
        return known != null ? known : agents.computeIfAbsent(agent, a -> new Gets(new HedgeDelay(deadlineNanos)));
    }

    /** Whether {@code agent} is late now. */
    boolean late(String agent, long now) {
        Gets gets = agents.get(agent);
        return gets != null && gets.late(now);
    }
}
