package io.kodiak.routing;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One {@code rewrite} rule: a regular expression searched in the client's path (without its
 * query), and the upstream target that replaces the whole path when it is found (nginx's
 * {@code rewrite}): {@code $1}..{@code $9} stand for its groups ({@code $0} the match). A
 * replacement with a {@code ?} carries its own query instead of the client's (nginx would append
 * the client's after it); a bare trailing {@code ?} sends none; without one the client's query is kept.
 */
public final class Rewrite {
    /** Characters a replacement may hold besides $N: a path's and a query's (RFC 3986 pchar, "/", "?", "%"). */
    private static final String TARGET_CHARS = "-._~!&'()*+,;=:@/?%";

    private final String match;
    private final String replace;
    private final Pattern pattern;

    private Rewrite(String match, String replace, Pattern pattern) {
        this.match = match;
        this.replace = replace;
        this.pattern = pattern;
    }

    /** Raised for a rule that cannot be applied; the message says what was expected. */
    public static final class Invalid extends Exception {
        public final boolean inMatch;

        Invalid(boolean inMatch, String expected) {
            super(expected, null, false, false);
            this.inMatch = inMatch;
        }
    }

    public static Rewrite of(String match, String replace) throws Invalid {
        Pattern pattern;
        try {
            pattern = Pattern.compile(match);
        } catch (PatternSyntaxException e) {
            throw new Invalid(true, "a Java regular expression (" + e.getDescription() + " near index " + e.getIndex() + ")");
        }
        if (!replace.startsWith("/")) {
            throw new Invalid(false, "a replacement starting with / (the new path, optionally ?query; $1..$9 for the groups)");
        }
        int groups = pattern.matcher("").groupCount();
        for (int i = 0; i < replace.length(); i++) {
            char c = replace.charAt(i);
            if (c == '$') {
                char digit = i + 1 < replace.length() ? replace.charAt(i + 1) : ' ';
                int group = digit >= '0' && digit <= '9' ? digit - '0' : -1;
                if (group < 0 || group > groups) {
                    throw new Invalid(false, "$0.." + "$" + groups + " only: the expression has " + groups + " group(s)");
                }
                i++;
            } else if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || TARGET_CHARS.indexOf(c) >= 0)) {
                throw new Invalid(false, "a replacement of characters allowed in a path and query (not '" + c + "')");
            }
        }
        int question = replace.indexOf('?');
        String literalPath = (question < 0 ? replace : replace.substring(0, question)).replaceAll("\\$[0-9]", "x");
        if (Router.hasDotSegment(literalPath)) {
            throw new Invalid(false, "a replacement without . or .. segments (every request would be refused)");
        }
        return new Rewrite(match, replace, pattern);
    }

    /** The new target (path, then ?query when the replacement has one), or null when the expression is not found. */
    String apply(CharSequence path) {
        Matcher m = pattern.matcher(path);
        if (!m.find()) {
            return null;
        }
        StringBuilder target = new StringBuilder(replace.length() + 32);
        boolean inQuery = false;
        for (int i = 0; i < replace.length(); i++) {
            char c = replace.charAt(i);
            if (c == '$') {
                String group = m.group(replace.charAt(++i) - '0');
                if (group != null) {
                    appendGroup(target, group, inQuery);
                }
            } else {
                inQuery |= c == '?';
                target.append(c);
            }
        }
        return target.toString();
    }

    /**
     * A group's text; in the query, with the characters that separate parameters percent-encoded,
     * so that "/u/1&admin=1" rewritten to "/user?id=$1" is one parameter, not two (nginx escapes
     * captures in arguments too).
     */
    private static void appendGroup(StringBuilder target, String group, boolean inQuery) {
        if (!inQuery) {
            target.append(group);
            return;
        }
        for (int i = 0; i < group.length(); i++) {
            char c = group.charAt(i);
            switch (c) {
                case '&' -> target.append("%26");
                case '=' -> target.append("%3D");
                case '+' -> target.append("%2B");
                case ';' -> target.append("%3B");
                default -> target.append(c);
            }
        }
    }

    public String match() {
        return match;
    }

    public String replace() {
        return replace;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Rewrite r && match.equals(r.match) && replace.equals(r.replace);
    }

    @Override
    public int hashCode() {
        return match.hashCode() * 31 + replace.hashCode();
    }

    @Override
    public String toString() {
        return match + " -> " + replace;
    }
}
