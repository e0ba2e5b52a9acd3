package io.kodiak.admin;

import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;

import java.io.IOException;
import java.util.function.Supplier;

/** GET /metrics: the Prometheus text exposition format (0.0.4) of every Kodiak and JVM meter. */
final class MetricsHandler extends HttpHandler {
    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final Supplier<String> exposition;

    /** {@code exposition} renders the registry's current state (after the latency feed is drained). */
    MetricsHandler(Supplier<String> exposition) {
        this.exposition = exposition;
    }

    @Override
    public void service(Request request, Response response) throws IOException {
        if (AdminResponses.rejectUnlessGet(request, response)) {
            return;
        }
        AdminResponses.send(request, response, 200, CONTENT_TYPE, exposition.get());
    }
}
