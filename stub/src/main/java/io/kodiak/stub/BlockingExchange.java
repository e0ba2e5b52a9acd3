package io.kodiak.stub;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** The original servlet's way: the container thread reads, sleeps through the delay, then writes. */
final class BlockingExchange {
    private BlockingExchange() {
    }

    static void handle(HttpServletRequest request, HttpServletResponse response, int delayMs, AppendedAnswer answers)
            throws IOException {
        BodyBuffer body = new BodyBuffer(request.getContentLengthLong());
        body.readAll(request.getInputStream());
        String text = body.decode(request.getCharacterEncoding());
        sleep(delayMs);
        byte[] answer = answers.utf8(text);
        StubResponse.prepare(response, answer.length);
        response.getOutputStream().write(answer);
        // On the wire before the servlet counts the exchange as done, so a draining stop never cuts it off.
        response.flushBuffer();
    }

    private static void sleep(int delayMs) {
        if (delayMs == 0) {
            return;
        }
        try {
            Thread.sleep(delayMs);
        } catch (InterruptedException shuttingDown) {
            // Answer anyway, shortened: the client is still owed a response; keep the flag for the container.
            Thread.currentThread().interrupt();
        }
    }
}
