package io.kodiak.listener;

import org.junit.jupiter.api.Test;

import static io.kodiak.listener.ConnectionBudget.RESERVED_FILES;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ConnectionBudgetTest {
    @Test
    void aConfiguredLimitIsTakenAsItIs() {
        assertEquals(500, ConnectionBudget.clientLimit(500, 20_000, 9_000));
        assertEquals(30_000, ConnectionBudget.clientLimit(30_000, 20_000, 9_000), "over the budget: warned, not changed");
    }

    @Test
    void zeroLeavesRoomForFullUpstreamPools() {
        assertEquals(20_000 - RESERVED_FILES - 9_000, ConnectionBudget.clientLimit(0, 20_000, 9_000));
        assertEquals(1_048_576 - RESERVED_FILES - 1_000, ConnectionBudget.clientLimit(0, 1_048_576, 1_000));
    }

    @Test
    void poolsLargerThanTheBudgetStillLeaveClientsHalf() {
        assertEquals((20_000 - RESERVED_FILES) / 2, ConnectionBudget.clientLimit(0, 20_000, 100_000));
    }

    @Test
    void unknownOrTinyFileLimits() {
        assertEquals(Integer.MAX_VALUE, ConnectionBudget.clientLimit(0, -1, 1_000));
        assertEquals(1, ConnectionBudget.clientLimit(0, 100, 0));
    }
}
