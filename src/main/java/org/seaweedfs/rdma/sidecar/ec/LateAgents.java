package org.seaweedfs.rdma.sidecar.ec;

import org.seaweedfs.rdma.sidecar.HedgeDelay;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Which agents serving EC shards are late: an agent with shard gets (or lookups) out that has answered none of them
 * for longer than its {@link HedgeDelay} (the p99 of its recent ones), or that a read has gone around since it last
 * answered. A stopped or hung agent is late once its delay passes; an agent that is merely busy answers gets all the
 * time and is not. Only an answer is progress: a get that fails (its channel closed, its lookup timed out) shows
 * nothing of the agent answering, so a hung agent stays late while any of its gets is out. Thread-safe and wait-free:
 * a counter, a time and a flag per agent, touched by each get as it starts and lands.
 */
final class LateAgents {

    private final long deadlineNanos;
    private final ConcurrentMap<String, Gets> agents = new ConcurrentHashMap<>();

    /** One agent's shard gets. */
    static final class Gets {
        private final HedgeDelay delay;
        private final AtomicInteger out = new AtomicInteger();
        /** When the agent last made progress: a get of it answered, or the first of those now out started. */
        private volatile long progressNanos;
        /** A read went around the agent, which has not answered since: it is late until it does. */
        private volatile boolean goneAround;
        /** Hedges around the agent that took no budget since it last answered (or had nothing out). */
        private final AtomicInteger freeHedges = new AtomicInteger();

        Gets(HedgeDelay delay) {
            this.delay = delay;
        }

        /** A get starts; returns its start time for {@link #landed}. */
        long started() {
            long now = System.nanoTime();
            if (out.getAndIncrement() == 0) {
                progressNanos = now;
                goneAround = false; // nothing of it was out: whatever it was gone around for is over
                freeHedges.set(0);
            }
            return now;
        }

        void landed(long startNanos, boolean succeeded) {
            long now = System.nanoTime();
            if (succeeded) {
                delay.record(now - startNanos);
                progressNanos = now;
                goneAround = false;
                freeHedges.set(0);
            }
            out.decrementAndGet();
        }

        /** How long the agent may make no progress with gets out before it is late. */
        long delayNanos() {
            return delay.nanos();
        }

        boolean late(long now) {
            return out.get() > 0 && (goneAround || now - progressNanos > delay.nanos());
        }

        /** Whether the agent has gets out and answered none of them for longer than {@code nanos}. */
        boolean stalled(long now, long nanos) {
            return out.get() > 0 && now - progressNanos > nanos;
        }

        /** When the agent last made progress (see {@link #stalled}). */
        long progressNanos() {
            return progressNanos;
        }

        /** Whether the agent has gets out (answered or not). */
        boolean busy() {
            return out.get() > 0;
        }

        /**
         * Claims a hedge around the agent free of the budget: at most one per get it has out, which is at most one per
         * read waiting on it (reads that merely go around it and are slow themselves are held to the budget).
         */
        boolean claimFreeHedge() {
            int claimed;
            do {
                claimed = freeHedges.get();
                if (claimed >= out.get()) {
                    return false;
                }
            } while (!freeHedges.compareAndSet(claimed, claimed + 1));
            return true;
        }

        /** A read goes around the agent: it is late until it answers a get (or none of its gets is out). */
        void goneAround() {
            goneAround = true;
        }
    }

    /** An agent found stalled, and when it last made progress. */
    record Stall(String agent, long sinceNanos) {
    }

    /** @param deadlineNanos a read's deadline, which bounds how late an agent is let to be */
    LateAgents(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    Gets of(String agent) {
        Gets known = agents.get(agent);
        return known != null ? known : agents.computeIfAbsent(agent, a -> new Gets(new HedgeDelay(deadlineNanos)));
    }

    /** The agent's gets, null when it has had none. */
    Gets find(String agent) {
        return agents.get(agent);
    }

    /** Whether {@code agent} is late now. */
    boolean late(String agent, long now) {
        Gets gets = agents.get(agent);
        return gets != null && gets.late(now);
    }

    /**
     * The late ones of {@code agents} that a read goes around: the longest stalled first, each as long as
     * {@code rebuildsWithout} holds for all of those chosen. When the others cannot rebuild around every late agent,
     * the read still goes around those it can, never the one it was hedged to go around (stalled longest) for one
     * merely late a moment (an agent a read went around just now is late until it answers).
     */
    Set<String> toGoAround(Collection<String> agents, long now, Predicate<Set<String>> rebuildsWithout) {
        return goAround(longestStalledFirst(agents, gets -> gets.late(now)), 0, rebuildsWithout);
    }

    /** Those of {@code agents} whose gets match {@code which}, the longest stalled first. */
    List<Stall> longestStalledFirst(Collection<String> agents, Predicate<Gets> which) {
        List<Stall> stalls = new ArrayList<>(2);
        for (String agent : agents) {
            Gets gets = this.agents.get(agent);
            if (gets != null && which.test(gets)) {
                stalls.add(new Stall(agent, gets.progressNanos()));
            }
        }
        stalls.sort(Comparator.comparingLong(Stall::sinceNanos));
        return stalls;
    }

    /**
     * The agents of {@code stalls}, taken in order from index {@code first} round to it, each kept as long as
     * {@code rebuildsWithout} holds for all of those kept.
     */
    static Set<String> goAround(List<Stall> stalls, int first, Predicate<Set<String>> rebuildsWithout) {
        Set<String> around = new LinkedHashSet<>();
        for (int i = 0; i < stalls.size(); i++) {
            String agent = stalls.get((first + i) % stalls.size()).agent();
            around.add(agent);
            if (!rebuildsWithout.test(around)) {
                around.remove(agent);
            }
        }
        return around;
    }

    /** Every agent's gets (a handful: the agents of the sidecar). */
    Iterable<Gets> all() {
        return agents.values();
    }
}
