package io.kodiak.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The little of Markdown the documentation tests need: which lines are code, the headings and the
 * anchors GitHub makes of them, and the links. Tests run from the repository root (Maven's
 * working directory), as ConfigurationDocTest's do.
 */
final class Markdown {
    private static final Pattern FENCE = Pattern.compile("^\\s{0,3}(```|~~~)");
    private static final Pattern HEADING = Pattern.compile("^\\s{0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[([^\\]]*)\\]\\(\\s*<?([^)\\s>]*)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE_DEF = Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s.*)?$");
    private static final Pattern HTML_ID = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");

    private Markdown() {
    }

    /** The files the manual is made of: README.md, CHANGELOG.md and docs/*.md. */
    static List<Path> manualFiles() throws IOException {
        List<Path> files = new ArrayList<>(List.of(Path.of("README.md"), Path.of("CHANGELOG.md")));
        try (Stream<Path> docs = Files.list(Path.of("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        return files;
    }

    static List<String> lines(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8).lines().toList();
    }

    /** For each line, whether it lies in a fenced code block (the fence lines included). */
    static boolean[] codeLines(List<String> lines) {
        boolean[] code = new boolean[lines.size()];
        String open = null;
        for (int i = 0; i < lines.size(); i++) {
            Matcher fence = FENCE.matcher(lines.get(i));
            if (open == null && fence.find()) {
                open = fence.group(1);
                code[i] = true;
            } else if (open != null) {
                code[i] = true;
                if (lines.get(i).trim().startsWith(open)) {
                    open = null;
                }
            }
        }
        return code;
    }

    /** The heading's text if the line is an ATX heading (outside code), else null. */
    static String heading(String line) {
        Matcher m = HEADING.matcher(line);
        return m.matches() ? m.group(2) : null;
    }

    static int headingLevel(String line) {
        Matcher m = HEADING.matcher(line);
        return m.matches() ? m.group(1).length() : 0;
    }

    /**
     * GitHub's anchor for a heading: links reduced to their text, lower case, every character but
     * letters, digits, spaces, '-' and '_' dropped, spaces turned into '-'.
     */
    static String anchor(String headingText) {
        String text = INLINE_LINK.matcher(headingText).replaceAll(r -> Matcher.quoteReplacement(r.group(1)));
        StringBuilder out = new StringBuilder();
        text.toLowerCase(java.util.Locale.ROOT).codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                out.appendCodePoint(c);
            } else if (c == ' ') {
                out.append('-');
            }
        });
        return out.toString();
    }

    /** Every anchor a file offers: its headings' (duplicates get -1, -2, ... as on GitHub) and HTML ids. */
    static Set<String> anchors(List<String> lines) {
        boolean[] code = codeLines(lines);
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            if (code[i]) {
                continue;
            }
            String text = heading(lines.get(i));
            if (text != null) {
                String base = anchor(text);
                int n = seen.merge(base, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? base : base + "-" + n);
            }
            Matcher id = HTML_ID.matcher(lines.get(i));
            while (id.find()) {
                anchors.add(id.group(1));
            }
        }
        return anchors;
    }

    /** A link's target as written, and the line it is on (1-based). */
    record Link(int line, String target) {
    }

    /** The links of a file outside code blocks and code spans: inline ones and reference definitions. */
    static List<Link> links(List<String> lines) {
        boolean[] code = codeLines(lines);
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (code[i]) {
                continue;
            }
            String line = CODE_SPAN.matcher(lines.get(i)).replaceAll("");
            Matcher m = INLINE_LINK.matcher(line);
            while (m.find()) {
                links.add(new Link(i + 1, m.group(2)));
            }
            Matcher def = REFERENCE_DEF.matcher(line);
            if (def.matches()) {
                links.add(new Link(i + 1, def.group(1)));
            }
        }
        return links;
    }

    /** Whether a link leaves the repository (a URL with a scheme, or a protocol-relative one). */
    static boolean external(String target) {
        return target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*") || target.startsWith("//");
    }
}
