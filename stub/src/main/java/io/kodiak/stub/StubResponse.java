package io.kodiak.stub;

import jakarta.servlet.http.HttpServletResponse;

/** The headers every answer carries; a Content-Length (never chunked) keeps proxies on the simple path. */
final class StubResponse {
    static final String CONTENT_TYPE = "text/plain; charset=UTF-8";

    private StubResponse() {
    }

    static void prepare(HttpServletResponse response, int length) {
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType(CONTENT_TYPE);
        response.setContentLength(length);
    }
}
