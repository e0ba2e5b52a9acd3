package io.kodiak.listener;

import io.kodiak.config.ProxyConfig.Endpoint;
import io.kodiak.tls.TlsSettings;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static io.kodiak.listener.ConnectionBudget.RESERVED_FILES;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ConnectionBudgetTest {
    @Test
    void aConfiguredLimitIsTakenAsItIs() {
        assertEquals(500, ConnectionBudget.clientLimit(500, 20_000, 9_000, 1));
        assertEquals(30_000, ConnectionBudget.clientLimit(30_000, 20_000, 9_000, 1), "over the budget: warned, not changed");
    }

    @Test
    void zeroLeavesRoomForFullUpstreamPools() {
        assertEquals(20_000 - RESERVED_FILES - 9_000, ConnectionBudget.clientLimit(0, 20_000, 9_000, 1));
        assertEquals(1_048_576 - RESERVED_FILES - 1_000, ConnectionBudget.clientLimit(0, 1_048_576, 1_000, 1));
    }

    @Test
    void poolsLargerThanTheBudgetStillLeaveClientsHalf() {
        assertEquals((20_000 - RESERVED_FILES) / 2, ConnectionBudget.clientLimit(0, 20_000, 100_000, 1));
    }

    @Test
    void unknownOrTinyFileLimits() {
        assertEquals(Integer.MAX_VALUE, ConnectionBudget.clientLimit(0, -1, 1_000, 1));
        assertEquals(1, ConnectionBudget.clientLimit(0, 100, 0, 1));
    }

    /** A Conscrypt engine keeps a pipe per connection: three descriptors per client, not one. */
    @Test
    void clientsWhoseEnginesHoldDescriptorsCountForThem() {
        assertEquals((20_000 - RESERVED_FILES - 1_000) / 3, ConnectionBudget.clientLimit(0, 20_000, 1_000, 3));
        assertEquals((20_000 - RESERVED_FILES) / 4, ConnectionBudget.clientLimit(0, 20_000, 9_000, 3),
                "pools that would leave less still leave each exchange in flight its four descriptors");
        Path pem = Path.of("server.pem");
        TlsSettings conscrypt = new TlsSettings(pem, pem, List.of(), List.of(),
                List.of(), TlsSettings.ClientAuth.NONE, null, TlsSettings.Provider.CONSCRYPT);
        TlsSettings jsse = new TlsSettings(pem, pem, List.of(), List.of(),
                List.of(), TlsSettings.ClientAuth.NONE, null, TlsSettings.Provider.JSSE);
        assertEquals(1, ConnectionBudget.filesPerClient(List.of(
                new Endpoint("proxy.listener", "127.0.0.1", 80, null, false, List.of()),
                new Endpoint("proxy.listeners[0]", "127.0.0.1", 443, jsse, false, List.of()))));
        assertEquals(3, ConnectionBudget.filesPerClient(List.of(
                new Endpoint("proxy.listener", "127.0.0.1", 80, null, false, List.of()),
                new Endpoint("proxy.listeners[0]", "127.0.0.1", 443, conscrypt, false, List.of()))));
    }
}
