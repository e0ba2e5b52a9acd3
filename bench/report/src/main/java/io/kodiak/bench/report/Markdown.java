package io.kodiak.bench.report;

import io.kodiak.bench.report.Page.Cell;
import io.kodiak.bench.report.Page.Table;
import java.util.List;

/** report.md: the page as GitHub-flavoured Markdown (tables; the charts are report.html's). */
final class Markdown {

    private Markdown() {
    }

    static String of(Page page) {
        StringBuilder md = new StringBuilder("# ").append(inline(page.title())).append("\n\n");
        if (page.headline() != null) {
            headline(md, page.headline());
        }
        page.facts().forEach(f -> md.append("- **").append(inline(f.name())).append("**: ").append(inline(f.value())).append('\n'));
        md.append('\n');
        page.notes().forEach(n -> md.append(n).append("\n\n"));
        md.append("Cells show the median over repetitions, [min–max] when they differ; ratios divide medians, "
                + "their range pairs the extremes.\n\n");
        if (!page.checks().isEmpty()) {
            md.append("## Against the targets\n\n| target | result | where it falls short |\n|---|---|---|\n");
            page.checks().forEach(v -> md.append("| ").append(inline(v.title())).append(" | ").append(v.outcome())
                    .append(" | ").append(inline(v.misses())).append(" |\n"));
            md.append('\n');
        }
        page.tables().forEach(t -> table(md, t));
        return md.toString();
    }

    /** The verdict first: its sentences, then the chart's figures as a table (the bars are report.html's). */
    private static void headline(StringBuilder md, Page.Headline h) {
        md.append("## Verdict\n\n");
        h.sentences().forEach(s -> md.append("- ").append(inline(s)).append('\n'));
        md.append("\n| target |");
        h.chart().datasets().forEach(d -> md.append(' ').append(inline(d.label())).append(" |"));
        md.append("\n|---|");
        h.chart().datasets().forEach(d -> md.append("---:|"));
        md.append('\n');
        for (int i = 0; i < h.chart().labels().size(); i++) {
            md.append("| ").append(inline(h.chart().labels().get(i))).append(" |");
            for (Page.Dataset d : h.chart().datasets()) {
                Cell c = d.points().get(i);
                md.append(' ').append(c == null ? "" : inline(c.text())).append(" |");
            }
            md.append('\n');
        }
        md.append('\n');
    }

    private static void table(StringBuilder md, Table t) {
        md.append("## ").append(inline(t.title())).append("\n\n");
        if (t.text() != null) {
            md.append(t.text()).append("\n\n");
        }
        if (t.rows().isEmpty()) {
            md.append("No data.\n\n");
            return;
        }
        md.append('|');
        t.header().forEach(h -> md.append(' ').append(inline(h)).append(" |"));
        md.append("\n|");
        // Row-key columns read as text, measured ones line up on the right.
        for (int i = 0; i < t.header().size(); i++) {
            md.append(i < t.keys() ? "---|" : "---:|");
        }
        md.append('\n');
        for (List<Cell> row : t.rows()) {
            md.append('|');
            row.forEach(c -> md.append(' ').append(cell(c)).append(" |"));
            md.append('\n');
        }
        md.append('\n');
    }

    private static String cell(Cell c) {
        return c.link() != null ? "[" + inline(c.text()) + "](" + c.link().replace(" ", "%20").replace(")", "%29") + ")" : inline(c.text());
    }

    /**
     * Keeps a value on its table line and as text: a pipe would open a new cell, a newline end the row, and
     * a {@code <} start raw HTML in renderers that allow it (Markdown's own backslash escape).
     */
    private static String inline(String s) {
        return s == null ? "" : s.replace("\\", "\\\\").replace("|", "\\|").replace("<", "\\<").replace('\n', ' ');
    }
}
