package io.kodiak.loop;

import org.glassfish.grizzly.nio.DefaultSelectorHandler;
import org.glassfish.grizzly.nio.SelectorRunner;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Set;

/**
 * Grizzly's selector handler with the ready keys handed over in a set each selector reuses. The
 * JDK's own selected-key set is a {@code HashSet}: a node for every ready key and an iterator for
 * every select, about 200 bytes per proxied request (a client read and an upstream read).
 * {@link Selector#select(java.util.function.Consumer, long)} (JDK 11) gives each ready key to an
 * action and leaves that set alone; the action here is the runner's {@link ReadyKeys}, which
 * Grizzly's runner iterates and clears as it did the JDK's set.
 *
 * <p>Not kept from {@link DefaultSelectorHandler#select}: the check for a selector that spins on
 * Linux (JDK-6403933, fixed in JDK 7's epoll selector), which is package-private to Grizzly. A
 * listening socket that cannot accept (the other known spin) is {@link AcceptGuard}'s.
 */
final class ReadyKeysSelectorHandler extends DefaultSelectorHandler {
    /** Each runner's set: a few runners, looked up by identity; replaced whole when one joins. */
    private volatile RunnerKeys[] sets = new RunnerKeys[0];

    private record RunnerKeys(SelectorRunner runner, ReadyKeys keys) {
    }

    @Override
    public Set<SelectionKey> select(SelectorRunner runner) throws IOException {
        ReadyKeys keys = keysOf(runner);
        Selector selector = runner.getSelector();
        // select returns the number of keys it updated; the action saw each of them, so the set
        // holds what the JDK's set would after Grizzly's clear() of the last round.
        if (runner.getPostponedTasks().isEmpty()) {
            selector.select(keys, selectTimeout);
        } else {
            selector.selectNow(keys);
        }
        return keys;
    }

    private ReadyKeys keysOf(SelectorRunner runner) {
        for (RunnerKeys known : sets) {
            if (known.runner == runner) {
                return known.keys;
            }
        }
        return joined(runner);
    }

    /** Once per runner, at its first select. */
    private synchronized ReadyKeys joined(SelectorRunner runner) {
        RunnerKeys[] current = sets;
        for (RunnerKeys known : current) {
            if (known.runner == runner) {
                return known.keys;
            }
        }
        RunnerKeys[] more = java.util.Arrays.copyOf(current, current.length + 1);
        more[current.length] = new RunnerKeys(runner, new ReadyKeys());
        sets = more;
        return more[current.length].keys;
    }
}
