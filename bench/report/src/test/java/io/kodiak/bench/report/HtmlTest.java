package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class HtmlTest {

    private static final String SPEC = """
            {"title": "</script><script>alert(1)</script>", "notes": ["<!-- & -->"],
             "sections": [{"title": "s", "columns": [{"field": "rps", "label": "req/s", "chart": "linear"}]}]}""";

    @Test
    void textFromTheResultsCannotLeaveTheEmbeddedJson() throws Exception {
        ObjectNode row = Fixtures.row("<img src=x onerror=alert(2)>", "a\u2028b", 1);
        row.put("rps", 100.5);
        String html = Html.of(Layout.of(Fixtures.results(SPEC, row)));
        Matcher m = Pattern.compile("<script id=\"page\" type=\"application/json\">(.*?)</script>", Pattern.DOTALL).matcher(html);
        assertTrue(m.find());
        String json = m.group(1);
        assertFalse(json.contains("<") || json.contains(">") || json.contains("&"), json);
        assertFalse(json.contains("\u2028"), "line separators would end a JavaScript string in older engines");
        Page back = ResultsFile.JSON.readValue(json, Page.class);
        assertEquals("</script><script>alert(1)</script>", back.title(), "the text itself arrives unchanged");
        assertEquals("<img src=x onerror=alert(2)>", back.tables().get(0).charts().get(0).datasets().get(0).label());
    }

    @Test
    void thePageIsSelfContainedWithTheChartLibraryAndItsLicence() throws Exception {
        String html = Html.of(Layout.of(Fixtures.results(SPEC, Fixtures.row("kodiak", "a", 1))));
        assertTrue(html.contains("Chart.js 4.5.1"), "the version is named");
        assertTrue(html.contains("Permission is hereby granted"), "the MIT licence travels with the code");
        assertFalse(Pattern.compile("<(script|link|img)[^>]+(src|href)=", Pattern.CASE_INSENSITIVE).matcher(html).find(),
                "nothing is loaded from elsewhere");
        assertFalse(html.contains("@@"), "every placeholder filled");
    }
}
