package io.kodiak.bench.report;

import java.util.regex.Pattern;

/** Whether a results file's link may be a link: a relative path inside the run's directory, nothing else. */
final class RelativePath {

    /** A URI scheme (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"), as browsers read one. */
    private static final Pattern SCHEME = Pattern.compile("^\\s*[A-Za-z][A-Za-z0-9+.-]*:");

    private RelativePath() {
    }

    static boolean isSafe(String path) {
        return !path.isBlank()
                && !SCHEME.matcher(path).find()
                && !path.startsWith("/") && !path.startsWith("\\")
                && path.chars().noneMatch(c -> c < 0x20 || c == 0x7f)
                && !path.contains("..");
    }
}
