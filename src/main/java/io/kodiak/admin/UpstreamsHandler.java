package io.kodiak.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kodiak.upstream.UpstreamClient;
import io.kodiak.upstream.UpstreamGroup;
import io.kodiak.upstream.UpstreamServer;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;

import java.io.IOException;

/**
 * GET /upstreams: every upstream group with its balancing and each server's state, requests in
 * flight and counts, as JSON. Implicit groups (a route's own host:port) are listed with
 * {@code "implicit": true}.
 */
final class UpstreamsHandler extends HttpHandler {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final UpstreamClient upstreams;

    UpstreamsHandler(UpstreamClient upstreams) {
        this.upstreams = upstreams;
    }

    @Override
    public void service(Request request, Response response) throws IOException {
        if (AdminResponses.rejectUnlessGet(request, response)) {
            return;
        }
        AdminResponses.send(request, response, 200, "application/json", JSON.writeValueAsString(report()) + "\n");
    }

    ObjectNode report() {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode groups = root.putArray("groups");
        for (UpstreamGroup group : upstreams.groups()) {
            ObjectNode g = groups.addObject();
            g.put("name", group.name());
            g.put("implicit", group.settings().implicit());
            g.put("balance", group.settings().balance().configName());
            g.put("protocol", group.settings().pool().protocol().configName());
            g.put("retries", group.retries());
            ArrayNode servers = g.putArray("servers");
            for (UpstreamServer server : group.servers()) {
                ObjectNode s = servers.addObject();
                s.put("url", server.url());
                s.put("address", server.authority());
                s.put("weight", server.weight());
                s.put("backup", server.backup());
                s.put("state", server.status().name());
                s.put("in_flight", server.inFlight());
                s.put("requests", server.requests());
                s.put("failures", server.failures());
                s.put("ejections", server.ejections());
                s.put("open_connections", server.pool().openConnections());
            }
        }
        return root;
    }
}
