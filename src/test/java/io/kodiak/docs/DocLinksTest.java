package io.kodiak.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every relative link in README.md, CHANGELOG.md and docs/*.md leads somewhere: its file (or
 * directory) exists, and its {@code #anchor}, if any, is a heading of the target file under GitHub's
 * rules (lower case, spaces to '-', punctuation other than '-' and '_' dropped; a repeated heading
 * gets -1, -2, ...). Links to URLs with a scheme are not followed.
 */
class DocLinksTest {

    @Test
    void everyRelativeLinkAndAnchorResolves() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path file : Markdown.manualFiles()) {
            problems.addAll(problems(file, Markdown.lines(file), DocLinksTest::readIfMarkdown));
        }
        assertTrue(problems.isEmpty(), "broken links:\n  " + String.join("\n  ", problems));
    }

    @Test
    void anchorsFollowGitHubsRules() {
        assertEquals("proxyupstreamsnameretry", Markdown.anchor("`proxy.upstreams.<name>.retry`"));
        assertEquals("the-floor-under-grizzly-relays-with-no-http", Markdown.anchor("The floor under Grizzly: relays with no HTTP"));
        assertEquals("http2-defences", Markdown.anchor("HTTP/2 defences"));
        assertEquals("what-a-user-sees_today", Markdown.anchor("What a user sees_today"));
        assertEquals("tracing", Markdown.anchor("[Tracing](daemon.md#tracing)"));
    }

    /** The check can fail: a missing file, a missing anchor in another file and in the same file. */
    @Test
    void reportsAMissingFileAndAMissingAnchor() {
        Path file = Path.of("docs", "example.md");
        List<String> lines = """
                # Example
                ## Kept section
                See [kept](#kept-section), [gone](#gone-section), [other](other.md#there),
                [missing](no-such-file.md), [web](https://example.org/#x) and `[code](nowhere.md)`.
                ```
                [in a block](nowhere.md)
                ```
                """.lines().toList();
        Map<Path, List<String>> others = Map.of(Path.of("docs", "other.md"), List.of("# Other", "## Elsewhere"));
        List<String> problems = problems(file, lines, p -> Optional.ofNullable(others.get(p.normalize())),
                p -> others.containsKey(p.normalize()));
        assertEquals(3, problems.size(), String.join("\n", problems));
        assertTrue(problems.get(0).contains("#gone-section"), problems.get(0));
        assertTrue(problems.get(1).contains("other.md#there"), problems.get(1));
        assertTrue(problems.get(2).contains("no-such-file.md"), problems.get(2));
    }

    private static Optional<List<String>> readIfMarkdown(Path path) {
        if (!path.toString().endsWith(".md") || !Files.isRegularFile(path)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Markdown.lines(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> problems(Path file, List<String> lines, Function<Path, Optional<List<String>>> markdown) {
        return problems(file, lines, markdown, Files::exists);
    }

    static List<String> problems(Path file, List<String> lines, Function<Path, Optional<List<String>>> markdown,
                                 java.util.function.Predicate<Path> exists) {
        List<String> problems = new ArrayList<>();
        Path dir = file.toAbsolutePath().getParent();
        Path root = Path.of("").toAbsolutePath();
        for (Markdown.Link link : Markdown.links(lines)) {
            String target = link.target();
            if (target.isEmpty() || Markdown.external(target)) {
                continue;
            }
            int hash = target.indexOf('#');
            String pathPart = hash < 0 ? target : target.substring(0, hash);
            String anchor = hash < 0 ? null : target.substring(hash + 1);
            Path resolved = pathPart.isEmpty() ? file.toAbsolutePath()
                    : dir.resolve(URLDecoder.decode(pathPart, StandardCharsets.UTF_8)).normalize();
            Path shown = root.relativize(resolved);
            String where = file + ":" + link.line() + ": (" + target + ")";
            if (!pathPart.isEmpty() && !exists.test(shown)) {
                problems.add(where + " " + shown + " does not exist");
                continue;
            }
            if (anchor != null && !anchor.isEmpty()) {
                Optional<List<String>> text = pathPart.isEmpty() ? Optional.of(lines) : markdown.apply(shown);
                if (text.isPresent() && !Markdown.anchors(text.get()).contains(anchor)) {
                    problems.add(where + " no heading gives #" + anchor + " in " + shown);
                }
            }
        }
        return problems;
    }
}
