package org.seaweedfs.rdma.sidecar.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The bound on hedges. */
class HedgeBudgetTest {

    @Test
    void aBurstIsHedgedThenOneReadInAHundred() {
        HedgeBudget budget = new HedgeBudget();
        for (int i = 0; i < HedgeBudget.BURST; i++) {
            assertTrue(budget.tryTake(), "hedge " + i + " of the burst");
        }
        assertFalse(budget.tryTake(), "the bucket is dry");
        for (int i = 0; i < HedgeBudget.READS_PER_HEDGE - 1; i++) {
            budget.readCompleted();
        }
        assertFalse(budget.tryTake(), "99 completed reads earn no hedge");
        budget.readCompleted();
        assertTrue(budget.tryTake(), "the hundredth earns one");
        assertFalse(budget.tryTake());
    }

    @Test
    void steadyStateHedgesStayWithinOneReadInAHundred() {
        HedgeBudget budget = new HedgeBudget();
        int hedged = 0;
        int reads = 100_000;
        for (int i = 0; i < reads; i++) {
            if (budget.tryTake()) { // every read asks (a host slow everywhere): the budget alone bounds them
                hedged++;
            }
            budget.readCompleted();
        }
        assertTrue(hedged <= reads / HedgeBudget.READS_PER_HEDGE + HedgeBudget.BURST, "hedged " + hedged);
    }

    @Test
    void aHedgeThatProvedTheFirstSourceSlowIsGivenBackUpToTheBurst() {
        HedgeBudget budget = new HedgeBudget();
        for (int i = 0; i < 1_000; i++) {
            assertTrue(budget.tryTake(), "a stopped agent: every hedge wins and comes back");
            budget.giveBack();
        }
        budget.giveBack();
        assertEquals(HedgeBudget.BURST, budget.hedgesLeft(), "never more than the burst");
    }
}
