package io.kodiak.admin;

import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;

import java.io.IOException;

/** GET /health: 200 with a JSON summary when serving, 503 (same JSON) while starting or draining. */
final class HealthHandler extends HttpHandler {
    private final Health health;

    HealthHandler(Health health) {
        this.health = health;
    }

    @Override
    public void service(Request request, Response response) throws IOException {
        if (AdminResponses.rejectUnlessGet(request, response)) {
            return;
        }
        AdminResponses.send(request, response, health.healthy() ? 200 : 503, "application/json", health.json() + "\n");
    }
}
