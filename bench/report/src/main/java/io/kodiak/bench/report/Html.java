package io.kodiak.bench.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * report.html: one self-contained page. Chart.js (from the jar, as npm installed it, with its licence) is
 * inlined; the page model is embedded as JSON and the page's script builds the tables and charts from it,
 * so no text is ever pasted into HTML markup here.
 */
final class Html {

    private static final ObjectMapper EMBEDDED = JsonMapper.builder()
            .enable(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII)
            .build();

    static {
        // Inside a script element only "</script" or "<!--" could end or bend it: with every <, > and &
        // written as \\u escapes (Jackson's own escaping, switched on for these characters) neither can occur.
        EMBEDDED.getFactory().setCharacterEscapes(new CharacterEscapes() {
            private final int[] ascii = standardAsciiEscapesForJSON();

            {
                ascii['<'] = ESCAPE_STANDARD;
                ascii['>'] = ESCAPE_STANDARD;
                ascii['&'] = ESCAPE_STANDARD;
            }

            @Override
            public int[] getEscapeCodesForAscii() {
                return ascii;
            }

            @Override
            public com.fasterxml.jackson.core.SerializableString getEscapeSequence(int ch) {
                return null;
            }
        });
    }

    private Html() {
    }

    static String of(Page page) throws IOException {
        String chart = resource("assets/chart.js/dist/chart.umd.min.js");
        String licence = resource("assets/chart.js/LICENSE.md");
        String version = JsonMapper.builder().build().readTree(resource("assets/chart.js/package.json")).path("version").asText();
        if (chart.contains("</script") || licence.contains("--")) {
            throw new IllegalStateException("the chart library or its licence cannot be inlined as it is");
        }
        String json = EMBEDDED.writeValueAsString(page);
        return resource("page.html")
                .replace("@@CHART_LICENSE@@", "Chart.js " + version + " (npm chart.js, https://www.chartjs.org), inlined. Its licence:\n" + licence)
                .replace("@@CHART_JS@@", chart)
                .replace("@@PAGE@@", json); // last: nothing is looked for in the results' own text
    }

    private static String resource(String name) {
        try (InputStream in = Html.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is not in the jar: build bench/report with bench/lib/report.sh");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
