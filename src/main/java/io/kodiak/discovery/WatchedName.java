package io.kodiak.discovery;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * One name being watched, and what is known of it: the last good answer (kept through failures),
 * when it came, and whether lookups fail now. Written by the resolver thread that looked it up
 * (one at a time: a name's next lookup is scheduled only when the last is done), read by the
 * group builds and the admin.
 */
public final class WatchedName {
    private static final Logger LOG = LoggerFactory.getLogger(WatchedName.class);

    /** Last good answer, with when it came. */
    public record Known(List<Endpoint> endpoints, Instant resolvedAt) {
    }

    private final DnsName name;
    private final LongAdder failures = new LongAdder();
    private volatile Known known;
    /** The last lookup's failure while lookups fail, else null: the log says a failure once, not every retry. */
    private volatile String failing;

    WatchedName(DnsName name) {
        this.name = name;
    }

    public DnsName name() {
        return name;
    }

    /** The last good answer, or null while the name has never resolved. */
    public Known known() {
        return known;
    }

    /** Why the last lookup failed, or null when it did not. */
    public String failing() {
        return failing;
    }

    public long failures() {
        return failures.sum();
    }

    /** A good answer: true when its addresses differ from the last good one's (the groups change). */
    boolean resolved(Answer answer, Instant now) {
        Known before = known;
        known = new Known(answer.endpoints(), now);
        if (failing != null) {
            LOG.info("resolver: {} resolves again: {}", name, addresses(answer.endpoints()));
            failing = null;
        }
        boolean changed = before == null || !before.endpoints().equals(answer.endpoints());
        if (changed) {
            LOG.info("resolver: {} now {}", name, addresses(answer.endpoints()));
        }
        return changed;
    }

    /**
     * A failed lookup: counted each time, logged when lookups start failing or fail another way.
     * True when a never-resolved name's cause changed (its group's 503 says the cause).
     */
    boolean failed(String reason) {
        failures.increment();
        String before = failing;
        failing = reason;
        if (!reason.equals(before)) {
            Known last = known;
            LOG.warn("resolver: {} failed: {}; {} (retried; logged again when it resolves or fails otherwise)", name, reason,
                    last == null ? "its group has no server from it until it resolves"
                            : "keeping the last good answer " + addresses(last.endpoints()) + " of " + last.resolvedAt());
        }
        return known == null && !reason.equals(before);
    }

    private static String addresses(List<Endpoint> endpoints) {
        StringBuilder text = new StringBuilder("[");
        for (Endpoint e : endpoints) {
            if (text.length() > 1) {
                text.append(", ");
            }
            text.append(e.port() == 0 ? e.address() : e.target() + " " + e.address() + ":" + e.port() + " weight " + e.weight()
                    + " priority " + e.priority());
        }
        return text.append(']').toString();
    }
}
