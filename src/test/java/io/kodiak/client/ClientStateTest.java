package io.kodiak.client;

import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import static io.kodiak.client.ClientState.BODY;
import static io.kodiak.client.ClientState.CLOSING;
import static io.kodiak.client.ClientState.DISCARD;
import static io.kodiak.client.ClientState.H2;
import static io.kodiak.client.ClientState.HEAD;
import static io.kodiak.client.ClientState.TUNNEL;
import static io.kodiak.client.ClientState.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Every move of a client connection's state, from every state: the diagram's moves lead there, the others throw. */
class ClientStateTest {
    private static final Map<ClientState, Set<ClientState>> DRAWN = Map.of(
            HEAD, EnumSet.of(BODY, WAIT, DISCARD, H2, CLOSING),
            BODY, EnumSet.of(WAIT, DISCARD, TUNNEL, CLOSING),
            WAIT, EnumSet.of(HEAD, TUNNEL, CLOSING),
            DISCARD, EnumSet.of(HEAD, CLOSING),
            TUNNEL, EnumSet.of(CLOSING),
            H2, EnumSet.of(CLOSING),
            CLOSING, EnumSet.of(CLOSING));

    @Test
    void onlyTheDrawnMovesAreAllowed() {
        for (ClientState from : ClientState.values()) {
            for (ClientState to : ClientState.values()) {
                if (DRAWN.get(from).contains(to)) {
                    assertEquals(to, from.to(to), from + " -> " + to);
                } else {
                    assertThrows(IllegalStateException.class, () -> from.to(to), from + " -> " + to);
                }
            }
        }
    }
}
