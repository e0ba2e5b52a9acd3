package io.kodiak.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The running daemon's admin listener, JSON in and out. A listener on a wildcard address is reached
 * on loopback; the token of proxy.admin.token-file goes along when this user can read it (needed
 * only when the listener's address is not a loopback one).
 */
final class AdminClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(3)).build();
    private final String base;
    private final String token;

    /** An answer: its status and JSON body. */
    record Answer(int status, JsonNode body) {
    }

    AdminClient(RecordedSettings settings) {
        String host = settings.adminHost();
        if (host.equals("0.0.0.0")) {
            host = "127.0.0.1";
        } else if (host.equals("::") || host.equals("0:0:0:0:0:0:0:0")) {
            host = "::1";
        }
        this.base = "http://" + RecordedSettings.urlHost(host) + ":" + settings.adminPort();
        this.token = readToken(settings.adminTokenFile());
    }

    private static String readToken(String file) {
        if (file == null) {
            return null;
        }
        try {
            return Files.readString(Path.of(file), StandardCharsets.US_ASCII).strip();
        } catch (IOException | RuntimeException unreadable) {
            // The daemon's user may read it and this one not: the listener decides.
            return null;
        }
    }

    JsonNode get(String path) throws IOException, InterruptedException {
        Answer answer = send(HttpRequest.newBuilder(URI.create(base + path)).GET(), Duration.ofSeconds(5));
        return answer.body();
    }

    Answer post(String path, JsonNode body, Duration timeout) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))), timeout);
    }

    private Answer send(HttpRequest.Builder request, Duration timeout) throws IOException, InterruptedException {
        if (token != null && !token.isEmpty()) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> response = http.send(request.timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body;
        try {
            body = JSON.readTree(response.body());
        } catch (IOException notJson) {
            throw new IOException(base + " answered " + response.statusCode() + " without JSON");
        }
        return new Answer(response.statusCode(), body);
    }

    static com.fasterxml.jackson.databind.node.ObjectNode object() {
        return JSON.createObjectNode();
    }

    String url() {
        return base;
    }
}
