package io.kodiak.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.glassfish.grizzly.http.Method;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;

/**
 * POST /reload: JSON in ({@code {"config_file": "/abs/path"}}, optional: the file in service
 * otherwise; naming one takes the admin token, see {@link ReloadGuard}), JSON out (the {@link ReloadService.Answer}). 200 applied, 422 refused, 500 failed,
 * 503 when this process reloads nothing, 403 when {@link ReloadGuard} refuses the peer. The
 * reload runs on the daemon's reload thread; the response waits suspended, holding no admin thread.
 */
final class ReloadHandler extends HttpHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A file name in a small JSON object: anything longer is not a request of ours. */
    private static final int MAX_BODY = 16 * 1024;

    private final ReloadGuard guard;
    private final ReloadService reloads;

    ReloadHandler(ReloadGuard guard, ReloadService reloads) {
        this.guard = guard;
        this.reloads = reloads;
    }

    @Override
    public void service(Request request, Response response) throws IOException {
        if (request.getMethod() != Method.POST) {
            response.setHeader("Allow", "POST");
            AdminResponses.send(request, response, 405, "text/plain; charset=utf-8", "only POST is allowed here\n");
            return;
        }
        String refusal = guard.refusal("POST /reload", InetAddress.getByName(request.getRemoteAddr()),
                request.getHeader("Authorization"));
        if (refusal != null) {
            send(request, response, 403, JSON.createObjectNode().put("result", "forbidden").put("reason", refusal));
            return;
        }
        String file;
        try {
            file = requestedFile(request);
        } catch (IllegalArgumentException e) {
            send(request, response, 400, JSON.createObjectNode().put("result", "bad request").put("reason", e.getMessage()));
            return;
        }
        if (file != null && !reloads.inService(file)) {
            String withoutToken = guard.refusalWithoutToken("POST /reload with config_file",
                    InetAddress.getByName(request.getRemoteAddr()), request.getHeader("Authorization"));
            if (withoutToken != null) {
                send(request, response, 403, JSON.createObjectNode().put("result", "forbidden").put("reason",
                        "config_file names a file for the daemon to read, which takes the token of "
                                + "proxy.admin.token-file even from loopback: " + withoutToken));
                return;
            }
        }
        java.util.concurrent.CompletableFuture<ReloadService.Answer> reloaded;
        try {
            reloaded = reloads.reload(file);
        } catch (RuntimeException e) {
            // Not even queued (the reload thread gone): said now, never a request left waiting.
            reloaded = java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        response.suspend();
        reloaded.whenComplete((answer, failure) -> {
            try {
                if (failure != null) {
                    LOG.error("reload failed", failure);
                    send(request, response, 500, JSON.createObjectNode().put("result", "failed").put("reason", failure.toString()));
                } else {
                    send(request, response, status(answer.result()), json(answer));
                }
            } catch (IOException e) {
                LOG.debug("the reload's answer was not delivered: {}", e.toString());
            } finally {
                response.resume();
            }
        });
    }

    /** The body's config_file: null when there is no body or no such field. */
    private static String requestedFile(Request request) throws IOException {
        byte[] body;
        try (InputStream in = request.getInputStream()) {
            body = in.readNBytes(MAX_BODY + 1);
        }
        if (body.length > MAX_BODY) {
            throw new IllegalArgumentException("a body of more than " + MAX_BODY + " bytes");
        }
        if (body.length == 0) {
            return null;
        }
        String type = request.getContentType();
        if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
            // A page in a browser on this host can post a form or text cross-site, not JSON
            // without asking first: a body is taken only as the JSON it must be.
            throw new IllegalArgumentException("a body must be Content-Type: application/json");
        }
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("expected a JSON object");
        }
        JsonNode file = root.get("config_file");
        if (file == null || file.isNull()) {
            return null;
        }
        if (!file.isTextual() || !file.asText().startsWith("/")) {
            throw new IllegalArgumentException("config_file: expected an absolute file name");
        }
        return file.asText();
    }

    private static int status(String result) {
        return switch (result) {
            case "applied" -> 200;
            case "refused" -> 422;
            case "unavailable" -> 503;
            default -> 500;
        };
    }

    static ObjectNode json(ReloadService.Answer answer) {
        ObjectNode root = JSON.createObjectNode();
        root.put("result", answer.result());
        root.put("generation", answer.generation());
        root.put("config_file", answer.configFile());
        answer.lines().forEach(root.putArray("lines")::add);
        answer.restartOnly().forEach(root.putArray("restart_only")::add);
        return root;
    }

    private static void send(Request request, Response response, int status, ObjectNode body) throws IOException {
        AdminResponses.send(request, response, status, "application/json", JSON.writeValueAsString(body) + "\n");
    }
}
