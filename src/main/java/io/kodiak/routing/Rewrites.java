package io.kodiak.routing;

import java.util.List;

/**
 * A route's rewrite rules, tried in order on the client's path; the first found decides the
 * upstream target, and without one the route's prefix mapping applies. The expressions come from
 * the configuration but the paths from clients: a pattern prone to catastrophic backtracking must
 * not let one request hold an I/O thread, so each match reads the path through a counter and gives
 * up past a budget of character reads ({@link TooCostly}); a match that runs out of stack (deep
 * recursion in java.util.regex on a long path) gives up the same way.
 */
public final class Rewrites {
    public static final Rewrites NONE = new Rewrites(List.of());
    /** Character reads one request's matching may make: linear matching of an 8 KiB path needs a few times its length. */
    static final long BUDGET = 2_000_000;

    /** The rules took more than the budget on this path. */
    public static final class TooCostly extends RuntimeException {
        TooCostly() {
            super("rewrite matching exceeded its budget", null, false, false);
        }
    }

    private final List<Rewrite> rules;

    private Rewrites(List<Rewrite> rules) {
        this.rules = List.copyOf(rules);
    }

    public static Rewrites of(List<Rewrite> rules) {
        return rules.isEmpty() ? NONE : new Rewrites(rules);
    }

    public boolean isEmpty() {
        return rules.isEmpty();
    }

    public List<Rewrite> rules() {
        return rules;
    }

    /**
     * The upstream path and query for {@code path} and {@code query} (without "?"; null when
     * none): the first rule found, else null (the prefix mapping applies).
     */
    public Target apply(String path, String query) {
        CountedPath counted = new CountedPath(path);
        for (Rewrite rule : rules) {
            String target;
            try {
                target = rule.apply(counted);
            } catch (StackOverflowError e) {
                // java.util.regex recurses once per pass of a loop over an alternation, so a few
                // thousand characters can exhaust the thread's stack before the read budget: the
                // same answer, and the stack is unwound by the time this runs.
                throw new TooCostly();
            }
            if (target != null) {
                int question = target.indexOf('?');
                if (question < 0) {
                    return new Target(target, query);
                }
                String ownQuery = target.substring(question + 1);
                return new Target(target.substring(0, question), ownQuery.isEmpty() ? null : ownQuery);
            }
        }
        return null;
    }

    /** An upstream path and its query (null: none). */
    public record Target(String path, String query) {
    }

    /** The path, counting the characters read from it against the budget. */
    private static final class CountedPath implements CharSequence {
        private final String path;
        private long reads;

        CountedPath(String path) {
            this.path = path;
        }

        @Override
        public int length() {
            return path.length();
        }

        @Override
        public char charAt(int index) {
            if (++reads > BUDGET) {
                throw new TooCostly();
            }
            return path.charAt(index);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return path.substring(start, end);
        }

        @Override
        public String toString() {
            return path;
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Rewrites r && rules.equals(r.rules);
    }

    @Override
    public int hashCode() {
        return rules.hashCode();
    }
}
