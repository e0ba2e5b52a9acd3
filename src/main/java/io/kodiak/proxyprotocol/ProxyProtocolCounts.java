package io.kodiak.proxyprotocol;

import java.util.concurrent.atomic.LongAdder;

/** Headers read on the listeners that require one, and connections refused, by reason (read by the metrics). */
public final class ProxyProtocolCounts {
    private final LongAdder accepted = new LongAdder();
    private final LongAdder pieced = new LongAdder();
    private final LongAdder[] refused = new LongAdder[ProxyHeaderRefused.Reason.values().length];

    public ProxyProtocolCounts() {
        for (int i = 0; i < refused.length; i++) {
            refused[i] = new LongAdder();
        }
    }

    void accepted() {
        accepted.increment();
    }

    void pieced() {
        pieced.increment();
    }

    /** Headers whose first read held only part of them (kept, and put together with the next read). */
    public long piecedCount() {
        return pieced.sum();
    }

    void refused(ProxyHeaderRefused.Reason reason) {
        refused[reason.ordinal()].increment();
    }

    public long acceptedCount() {
        return accepted.sum();
    }

    public long refusedCount(ProxyHeaderRefused.Reason reason) {
        return refused[reason.ordinal()].sum();
    }
}
