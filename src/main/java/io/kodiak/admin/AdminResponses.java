package io.kodiak.admin;

import org.glassfish.grizzly.http.Method;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** The few ways the admin endpoints answer; they are read-only, so only GET and HEAD are allowed. */
final class AdminResponses {
    private AdminResponses() {
    }

    /** Answers 405 and returns true for anything but GET or HEAD. */
    static boolean rejectUnlessGet(Request request, Response response) throws IOException {
        Method method = request.getMethod();
        if (method == Method.GET || method == Method.HEAD) {
            return false;
        }
        response.setHeader("Allow", "GET, HEAD");
        send(request, response, 405, "text/plain; charset=utf-8", "only GET and HEAD are allowed here\n");
        return true;
    }

    static void send(Request request, Response response, int status, String contentType, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType(contentType);
        // Monitoring must see the state of now, never a cached copy.
        response.setHeader("Cache-Control", "no-store");
        response.setContentLength(bytes.length);
        if (request.getMethod() != Method.HEAD) {
            response.getOutputStream().write(bytes);
        }
    }
}
