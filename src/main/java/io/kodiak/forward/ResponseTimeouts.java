package io.kodiak.forward;

import org.glassfish.grizzly.utils.DelayedExecutor;

import java.util.concurrent.TimeUnit;

/** The response-timeout clock: from the request being sent to the first byte of the response. */
final class ResponseTimeouts {
    private final DelayedExecutor.DelayQueue<Exchange> queue;
    private final long timeoutMillis;

    ResponseTimeouts(DelayedExecutor timers, long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
        this.queue = timers.createDelayQueue(new Expiry(), new Deadline());
    }

    void start(Exchange exchange) {
        queue.add(exchange, timeoutMillis, TimeUnit.MILLISECONDS);
    }

    void cancel(Exchange exchange) {
        queue.remove(exchange);
    }

    long timeoutMillis() {
        return timeoutMillis;
    }

    private static final class Expiry implements DelayedExecutor.Worker<Exchange> {
        @Override
        public boolean doWork(Exchange exchange) {
            exchange.onResponseTimeout();
            return true;
        }
    }

    private static final class Deadline implements DelayedExecutor.Resolver<Exchange> {
        @Override
        public boolean removeTimeout(Exchange exchange) {
            exchange.timeoutAtMillis = DelayedExecutor.UNSET_TIMEOUT;
            return true;
        }

        @Override
        public long getTimeoutMillis(Exchange exchange) {
            return exchange.timeoutAtMillis;
        }

        @Override
        public void setTimeoutMillis(Exchange exchange, long timeoutMillis) {
            exchange.timeoutAtMillis = timeoutMillis;
        }
    }
}
