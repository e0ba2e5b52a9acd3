package io.kodiak.admin;

import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;

import java.io.IOException;

/** Anything else on the admin port: 404 naming the endpoints that do exist. */
final class NotFoundHandler extends HttpHandler {
    @Override
    public void service(Request request, Response response) throws IOException {
        AdminResponses.send(request, response, 404, "text/plain; charset=utf-8",
                "not found; the admin endpoints are GET /health, GET /metrics, GET /upstreams, GET /status and POST /reload\n");
    }
}
