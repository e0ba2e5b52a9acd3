package io.kodiak.exchange;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.EnumSet;
import java.util.Set;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every transition of the exchange's state machine, from every phase: where it leads, or that it is refused. */
class PhaseTest {

    private static void allowedOnlyFrom(Set<Phase> from, UnaryOperator<Phase> transition, UnaryOperator<Phase> expected) {
        for (Phase phase : Phase.values()) {
            if (from.contains(phase)) {
                assertEquals(expected.apply(phase), transition.apply(phase), "from " + phase);
            } else {
                assertThrows(IllegalStateException.class, () -> transition.apply(phase), "from " + phase);
            }
        }
    }

    @Test
    void boundLeadsToSendingOrAwaitingFromConnectingOnly() {
        allowedOnlyFrom(EnumSet.of(Phase.CONNECTING), p -> p.bound(false), p -> Phase.SENDING);
        allowedOnlyFrom(EnumSet.of(Phase.CONNECTING), p -> p.bound(true), p -> Phase.AWAITING);
    }

    @Test
    void requestSentEndsTheBodyWhileSendingOrAnsweredEarly() {
        allowedOnlyFrom(EnumSet.of(Phase.SENDING, Phase.EARLY_RESPONSE), Phase::requestSent,
                p -> p == Phase.SENDING ? Phase.AWAITING : Phase.RESPONDING);
    }

    @Test
    void headForwardedStartsTheResponse() {
        allowedOnlyFrom(EnumSet.of(Phase.SENDING, Phase.AWAITING), Phase::headForwarded,
                p -> p == Phase.SENDING ? Phase.EARLY_RESPONSE : Phase.RESPONDING);
    }

    @Test
    void switchedOpensATunnel() {
        allowedOnlyFrom(EnumSet.of(Phase.SENDING, Phase.AWAITING), Phase::switched, p -> Phase.TUNNELLING);
    }

    @Test
    void completedOnlyOnceTheResponseBegan() {
        allowedOnlyFrom(EnumSet.of(Phase.EARLY_RESPONSE, Phase.RESPONDING, Phase.TUNNELLING), Phase::completed,
                p -> Phase.COMPLETE);
    }

    @Test
    void retryOnlyBeforeTheResponse() {
        allowedOnlyFrom(EnumSet.of(Phase.SENDING, Phase.AWAITING), Phase::retry, p -> Phase.CONNECTING);
    }

    @Test
    void failedFromAnyPhaseBeforeTheEnd() {
        allowedOnlyFrom(EnumSet.complementOf(EnumSet.of(Phase.COMPLETE, Phase.FAILED)), Phase::failed, p -> Phase.FAILED);
    }

    @ParameterizedTest
    @EnumSource(Phase.class)
    void whatEachPhaseSays(Phase phase) {
        assertEquals(phase == Phase.COMPLETE || phase == Phase.FAILED, phase.isOver());
        assertEquals(EnumSet.of(Phase.EARLY_RESPONSE, Phase.RESPONDING, Phase.TUNNELLING).contains(phase), phase.responseStarted());
        assertEquals(!phase.isOver() && phase != Phase.CONNECTING, phase.hasUpstream());
    }

    @Test
    void requestProgressGoesOneWay() {
        assertEquals(RequestProgress.RECEIVING, RequestProgress.of(true));
        assertEquals(RequestProgress.RECEIVED, RequestProgress.of(false));
        assertEquals(RequestProgress.RECEIVED, RequestProgress.RECEIVING.received());
        assertThrows(IllegalStateException.class, RequestProgress.RECEIVED::received);
        assertTrue(Phase.CONNECTING.bound(false).hasUpstream());
        assertFalse(Phase.CONNECTING.hasUpstream());
    }
}
