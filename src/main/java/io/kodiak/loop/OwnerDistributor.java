package io.kodiak.loop;

import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.nio.AbstractNIOConnectionDistributor;
import org.glassfish.grizzly.nio.NIOTransport;
import org.glassfish.grizzly.nio.RegisterChannelResult;
import org.glassfish.grizzly.nio.SelectorRunner;

import java.io.IOException;
import java.nio.channels.SelectableChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Picks the selector a new channel is registered on. Listening sockets: selector 0, alone.
 * A connection opened on a loop (an exchange's upstream connection): that loop's selector, so its
 * events run where the exchange runs. Anything else (accepted clients, health checks opened by
 * the timer): the loops' selectors in turn.
 */
final class OwnerDistributor extends AbstractNIOConnectionDistributor {
    private final EventLoops loops;
    private final AtomicInteger turn = new AtomicInteger();

    OwnerDistributor(NIOTransport transport, EventLoops loops) {
        super(transport);
        this.loops = loops;
    }

    /** The transport's selectors, once it has started (Grizzly shows them to distributors only). */
    SelectorRunner[] runners() {
        return getTransportSelectorRunners();
    }

    private SelectorRunner next() {
        EventLoop owner = loops.current();
        if (owner != null) {
            return owner.runner();
        }
        SelectorRunner[] runners = getTransportSelectorRunners();
        if (runners.length == 1) {
            return runners[0];
        }
        return runners[1 + (turn.getAndIncrement() & 0x7fffffff) % (runners.length - 1)];
    }

    @Override
    public void registerChannel(SelectableChannel channel, int interestOps, Object attachment) throws IOException {
        transport.getSelectorHandler().registerChannel(next(), channel, interestOps, attachment);
    }

    @Override
    public void registerChannelAsync(SelectableChannel channel, int interestOps, Object attachment,
                                     CompletionHandler<RegisterChannelResult> completionHandler) {
        transport.getSelectorHandler().registerChannelAsync(next(), channel, interestOps, attachment, completionHandler);
    }

    @Override
    public void registerServiceChannelAsync(SelectableChannel channel, int interestOps, Object attachment,
                                            CompletionHandler<RegisterChannelResult> completionHandler) {
        transport.getSelectorHandler().registerChannelAsync(getTransportSelectorRunners()[0], channel, interestOps,
                attachment, completionHandler);
    }
}
