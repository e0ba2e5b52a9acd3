package io.kodiak.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kodiak.discovery.Discovery;
import io.kodiak.discovery.Endpoint;
import io.kodiak.discovery.WatchedName;
import io.kodiak.upstream.UpstreamClient;
import io.kodiak.upstream.UpstreamGroup;
import io.kodiak.upstream.UpstreamServer;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;

import java.io.IOException;

/**
 * GET /upstreams: every upstream group with its balancing and each server's state, requests in
 * flight, counts and pool use, as JSON. Implicit groups (a route's own host:port) are listed with
 * {@code "implicit": true}. {@code resolved}: each name looked up while Kodiak runs (resolve = true,
 * discovery), its current addresses, when it last resolved, and the failure while lookups fail;
 * a server found through a name says which.
 */
final class UpstreamsHandler extends HttpHandler {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final UpstreamClient upstreams;
    private final Discovery discovery;

    UpstreamsHandler(UpstreamClient upstreams, Discovery discovery) {
        this.upstreams = upstreams;
        this.discovery = discovery;
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
            if (group.settings().srv() != null) {
                g.put("srv", group.settings().srv());
            }
            if (group.unavailable() != null) {
                g.put("unavailable", group.unavailable());
            }
            ArrayNode servers = g.putArray("servers");
            for (UpstreamServer server : group.servers()) {
                ObjectNode s = servers.addObject();
                s.put("url", server.url());
                s.put("address", server.authority());
                if (server.dnsName() != null) {
                    s.put("name", server.dnsName());
                }
                s.put("weight", server.weight());
                s.put("backup", server.backup());
                s.put("state", server.status().name());
                s.put("in_flight", server.inFlight());
                s.put("requests", server.requests());
                s.put("failures", server.failures());
                s.put("ejections", server.ejections());
                s.put("open_connections", server.pool().openConnections());
                s.put("leased_connections", server.pool().leasedConnections());
                s.put("idle_connections", server.pool().idleConnections());
                s.put("pending", server.pool().pendingAcquisitions());
                s.put("max_connections", server.pool().maxConnections());
            }
        }
        ArrayNode resolved = root.putArray("resolved");
        for (WatchedName name : discovery.names()) {
            ObjectNode n = resolved.addObject();
            n.put("name", name.name().name());
            n.put("type", name.name().type());
            WatchedName.Known known = name.known();
            ArrayNode addresses = n.putArray("addresses");
            if (known != null) {
                for (Endpoint e : known.endpoints()) {
                    addresses.add(e.port() == 0 ? e.address() : e.target() + "=" + (e.address().indexOf(':') >= 0
                            ? "[" + e.address() + "]" : e.address()) + ":" + e.port());
                }
            }
            n.put("resolved_at", known == null ? null : known.resolvedAt().toString());
            n.put("failing", name.failing());
            n.put("failures", name.failures());
        }
        return root;
    }
}
