package io.kodiak.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kodiak.Kodiak;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;

import java.io.IOException;

/**
 * GET /status: what bin/proxy.sh status prints about the running proxy, as JSON: /health's fields,
 * client connections against their limit, requests since start and, while tracing runs, its span
 * counts. Per-server use is GET /upstreams'.
 */
final class StatusHandler extends HttpHandler {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Health health;
    private final Kodiak kodiak;
    private final MeterRegistry registry;

    StatusHandler(Health health, Kodiak kodiak, MeterRegistry registry) {
        this.health = health;
        this.kodiak = kodiak;
        this.registry = registry;
    }

    @Override
    public void service(Request request, Response response) throws IOException {
        if (AdminResponses.rejectUnlessGet(request, response)) {
            return;
        }
        AdminResponses.send(request, response, 200, "application/json", JSON.writeValueAsString(report()) + "\n");
    }

    ObjectNode report() throws IOException {
        ObjectNode root = (ObjectNode) JSON.readTree(health.json());
        root.put("requests", (long) registry.find("kodiak.requests").counters().stream().mapToDouble(Counter::count).sum());
        ObjectNode clients = root.putObject("clients");
        clients.put("open", kodiak.listener().openConnections());
        clients.put("max", kodiak.listener().maxConnections());
        clients.put("accept_pauses", kodiak.listener().acceptPauses());
        if (kodiak.tracing() != null) {
            ObjectNode spans = root.putObject("spans");
            spans.put("exported", kodiak.tracing().exportedSpans());
            spans.put("dropped", kodiak.tracing().droppedSpans());
        }
        return root;
    }
}
