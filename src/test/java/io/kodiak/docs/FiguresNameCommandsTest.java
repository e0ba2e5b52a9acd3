package io.kodiak.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every table of figures in README.md and docs/benchmarks.md names the command that produced it and
 * when. A table carries a measurement when a body cell other than the row's label is a number
 * (with or without a unit, a range or a "[min–max]"). Such a table must be preceded, within its
 * section (from the nearest heading above it), by a line with a command in backticks or in a code
 * block ({@code bin/....sh}, {@code bench/....sh}, {@code mvn ...}, {@code java bench/....java}) and
 * by a date (YYYY-MM-DD). A file named without a command to run it does not count.
 */
class FiguresNameCommandsTest {
    static final List<Path> FILES = List.of(Path.of("README.md"), Path.of("docs", "benchmarks.md"));

    /** A script of bin/ or bench/, Maven, or a single-file Java program of bench/: not a file path alone. */
    private static final Pattern COMMAND = Pattern.compile(
            "(^|[\\s=\"'])(bin/[\\w.-]+\\.sh|bench/[\\w./-]+\\.sh|mvn|java bench/[\\w./-]+\\.java)(\\s|$)");
    private static final Pattern CODE_SPAN = Pattern.compile("`+([^`]+)`+");
    private static final Pattern DATE = Pattern.compile("\\b20\\d\\d-\\d\\d-\\d\\d\\b");
    private static final Pattern NUMBER = Pattern.compile(
            "^[~≈+\\-−]?\\d[\\d,.]*(\\s*(ms|µs|s|%|x|MB|MiB|KB|KiB|GB|k))?(\\s*(\\[[^\\]]*\\]|\\([^)]*\\)))?.*$");

    @Test
    void everyTableOfFiguresNamesItsCommandAndDate() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path file : FILES) {
            problems.addAll(problems(file.toString(), Markdown.lines(file)));
        }
        assertTrue(problems.isEmpty(), "tables of figures without their command or date:\n  " + String.join("\n  ", problems));
    }

    /** The check can fail: a table of figures whose command is in another section, or nowhere. */
    @Test
    void aTableWithoutItsCommandFails() {
        String markdown = """
                # Benchmarks
                ## Throughput
                Measured with `bin/bench.sh throughput --duration 8` on 2026-11-23.

                | cell | req/s |
                |---|---:|
                | 512 B × 80 | 41,200 |

                ## Reload
                Measured on 2026-11-24, command unknown.

                | proxy | failed |
                |---|---:|
                | Kodiak | 0 |

                ## Options
                | option | meaning |
                |---|---|
                | `--quick` | a short run |
                """;
        List<String> problems = problems("memory.md", markdown.lines().toList());
        assertEquals(1, problems.size(), String.join("\n", problems));
        assertTrue(problems.get(0).startsWith("memory.md:12:"), problems.get(0));
        assertTrue(problems.get(0).contains("no command"), problems.get(0));
    }

    @Test
    void aFilePathIsNotACommand() {
        String markdown = """
                ## gRPC
                On 2026-11-29, through `bench/h2/grpc/GrpcEcho.java`:

                | calls | req/s |
                |---|---:|
                | unary | 38,317 |
                """;
        List<String> problems = problems("memory.md", markdown.lines().toList());
        assertEquals(1, problems.size(), String.join("\n", problems));
        assertTrue(problems.get(0).contains("no command"), problems.get(0));
    }

    @Test
    void aTableWithoutADateFails() {
        String markdown = """
                ## Failover
                ```
                bin/bench.sh failover
                ```
                | proxy | p99 ms |
                |---|---:|
                | Kodiak | 22 (22) |
                """;
        List<String> problems = problems("memory.md", markdown.lines().toList());
        assertEquals(1, problems.size(), String.join("\n", problems));
        assertTrue(problems.get(0).contains("no date"), problems.get(0));
    }

    static List<String> problems(String name, List<String> lines) {
        boolean[] code = Markdown.codeLines(lines);
        List<String> problems = new ArrayList<>();
        boolean command = false;
        boolean date = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (!code[i] && Markdown.heading(line) != null) {
                command = false;
                date = false;
                continue;
            }
            if (!code[i] && line.trim().startsWith("|")) {
                int start = i;
                boolean figures = false;
                while (i < lines.size() && lines.get(i).trim().startsWith("|")) {
                    figures |= i >= start + 2 && hasFigure(lines.get(i));
                    i++;
                }
                i--;
                if (figures && !command) {
                    problems.add(name + ":" + (start + 1) + ": a table of figures with no command before it in its section");
                } else if (figures && !date) {
                    problems.add(name + ":" + (start + 1) + ": a table of figures with no date before it in its section");
                }
                continue;
            }
            command |= code[i] ? COMMAND.matcher(line.trim()).find() : namesCommand(line);
            date |= DATE.matcher(line).find();
        }
        return problems;
    }

    private static boolean namesCommand(String line) {
        var spans = CODE_SPAN.matcher(line);
        while (spans.find()) {
            if (COMMAND.matcher(spans.group(1).trim()).find()) {
                return true;
            }
        }
        // An indented code block line (four spaces) holding the command itself.
        return line.startsWith("    ") && COMMAND.matcher(line.trim()).find();
    }

    private static boolean hasFigure(String row) {
        String[] cells = row.trim().replaceAll("^\\||\\|$", "").split("\\|");
        for (int c = 1; c < cells.length; c++) {
            String cell = cells[c].replace("*", "").trim();
            if (NUMBER.matcher(cell).matches()) {
                return true;
            }
        }
        return false;
    }
}
