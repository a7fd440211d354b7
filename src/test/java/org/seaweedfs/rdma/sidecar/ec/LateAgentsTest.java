package org.seaweedfs.rdma.sidecar.ec;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An agent whose gets hang is late, and stays late while they hang: a get of it that fails (its channel closed, its
 * lookup timed out) is no answer. A read that went around it makes it late at once, until it answers. Free hedges
 * around it are bounded by the gets it has out. A read goes around as many late agents as the others can rebuild
 * around, the longest stalled first.
 */
class LateAgentsTest {

    /** A 4 ms deadline: the delay of an agent with no history (a quarter of it) passes after 1 ms. */
    private static final long DEADLINE_NANOS = TimeUnit.MILLISECONDS.toNanos(4);

    @Test
    void aHungAgentStaysLateWhenAnotherOfItsGetsFails() throws InterruptedException {
        LateAgents late = new LateAgents(DEADLINE_NANOS);
        LateAgents.Gets gets = late.of("hung");
        gets.started(); // hangs
        long failing = gets.started();
        pastTheDelay(gets);
        assertTrue(late.late("hung", System.nanoTime()));
        gets.landed(failing, false);
        assertTrue(late.late("hung", System.nanoTime()), "a failed get is no answer: the agent is still late");
        assertTrue(gets.stalled(System.nanoTime(), gets.delayNanos()));
    }

    @Test
    void anAnswerEndsLatenessAndNothingOutIsNeverLate() throws InterruptedException {
        LateAgents late = new LateAgents(DEADLINE_NANOS);
        LateAgents.Gets gets = late.of("slow");
        long first = gets.started();
        long second = gets.started();
        pastTheDelay(gets);
        assertTrue(late.late("slow", System.nanoTime()));
        gets.landed(first, true);
        assertFalse(late.late("slow", System.nanoTime()), "it answered just now");
        gets.landed(second, true);
        pastTheDelay(gets);
        assertFalse(late.late("slow", System.nanoTime()), "nothing out: nothing to be late with");
        assertFalse(gets.stalled(System.nanoTime(), 0));
    }

    @Test
    void anAgentGoneAroundIsLateAtOnceUntilItAnswers() {
        LateAgents late = new LateAgents(TimeUnit.SECONDS.toNanos(60));
        LateAgents.Gets gets = late.of("stopped");
        long start = gets.started();
        assertFalse(late.late("stopped", System.nanoTime()), "its own delay has not passed");
        gets.goneAround();
        assertTrue(late.late("stopped", System.nanoTime()), "a read went around it");
        gets.landed(start, true);
        assertFalse(late.late("stopped", System.nanoTime()), "it answered");
    }

    @Test
    void freeHedgesAroundAnAgentAreAtMostItsGetsOut() {
        LateAgents late = new LateAgents(DEADLINE_NANOS);
        LateAgents.Gets gets = late.of("stopped");
        assertFalse(gets.claimFreeHedge(), "nothing out: no read waits on it");
        gets.started();
        long second = gets.started();
        assertTrue(gets.claimFreeHedge());
        assertTrue(gets.claimFreeHedge());
        assertFalse(gets.claimFreeHedge(), "two gets out: two reads at most wait on it");
        gets.landed(second, true);
        gets.started();
        assertTrue(gets.claimFreeHedge(), "it answered: the reads waiting now are others");
    }

    @Test
    void aReadGoesAroundTheLongestStalledWhenItCannotGoAroundEveryLateAgent() throws InterruptedException {
        LateAgents late = new LateAgents(DEADLINE_NANOS);
        LateAgents.Gets stopped = late.of("stopped");
        stopped.started(); // hangs from now on
        pastTheDelay(stopped);
        LateAgents.Gets busy = late.of("busy");
        busy.landed(busy.started(), true);
        busy.started();
        busy.goneAround(); // another read went around it a moment ago: late until it answers
        List<String> agents = List.of("busy", "stopped", "fine");
        long now = System.nanoTime();
        assertEquals(Set.of("stopped"), late.toGoAround(agents, now, around -> around.size() <= 1),
                "the others rebuild around one agent: the one stalled longest, not the one listed first");
        assertEquals(Set.of("stopped", "busy"), late.toGoAround(agents, now, around -> true), "every late one");
        assertEquals(Set.of(), late.toGoAround(agents, now, around -> false), "none: the read waits");
        assertEquals(Set.of(), late.toGoAround(List.of("fine"), now, around -> true), "nothing late");
    }

    private static void pastTheDelay(LateAgents.Gets gets) throws InterruptedException {
        long until = System.nanoTime() + gets.delayNanos() + 1;
        while (System.nanoTime() - until <= 0) {
            Thread.sleep(1);
        }
    }
}
