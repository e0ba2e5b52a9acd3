package io.kodiak.stub;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One request in async mode. No thread is held while the body trickles in (ReadListener), while the delay runs
 * (a scheduler task), or while a slow client drains the answer (WriteListener).
 */
final class AsyncExchange implements ReadListener, WriteListener, AsyncListener {
    /** How long a client may take to send its body and read the answer, on top of the delay. */
    static final long CLIENT_SLACK_MS = 120_000;

    private final AsyncContext async;
    private final HttpServletRequest request;
    private final HttpServletResponse response;
    private final int delayMs;
    private final ScheduledExecutorService scheduler;
    private final AppendedAnswer answers;
    private final Runnable onFinished;

    private ServletInputStream in;
    private BodyBuffer body;
    private String text;
    private ServletOutputStream out;
    private byte[] answer;
    private boolean written;
    private boolean flushed;
    private boolean finished;
    private Future<?> pendingAnswer;

    AsyncExchange(HttpServletRequest request, HttpServletResponse response, int delayMs,
                  ScheduledExecutorService scheduler, AppendedAnswer answers, Runnable onFinished) {
        this.request = request;
        this.response = response;
        this.delayMs = delayMs;
        this.scheduler = scheduler;
        this.answers = answers;
        this.onFinished = onFinished;
        this.async = request.startAsync(request, response);
    }

    void start() throws IOException {
        async.setTimeout(delayMs + CLIENT_SLACK_MS);
        async.addListener(this);
        body = new BodyBuffer(request.getContentLengthLong());
        in = request.getInputStream();
        in.setReadListener(this);
    }

    @Override
    public void onDataAvailable() throws IOException {
        while (in.isReady()) {
            if (body.readFrom(in) < 0) {
                return;
            }
        }
    }

    @Override
    public void onAllDataRead() {
        String decoded = body.decode(request.getCharacterEncoding());
        synchronized (this) {
            text = decoded;
            body = null;
            if (finished) {
                return;
            }
            if (delayMs > 0) {
                pendingAnswer = scheduler.schedule(this::answer, delayMs, TimeUnit.MILLISECONDS);
                return;
            }
        }
        answer();
    }

    /** Runs on the scheduler thread: only hands the write to the container, which calls onWritePossible. */
    private void answer() {
        synchronized (this) {
            if (finished) {
                return;
            }
            answer = answers.utf8(text);
        }
        try {
            StubResponse.prepare(response, answer.length);
            out = response.getOutputStream();
            out.setWriteListener(this);
        } catch (IOException | IllegalStateException exchangeAlreadyOver) {
            // The client went away or the async timeout fired meanwhile: nobody is left to answer.
            finish();
        }
    }

    @Override
    public void onWritePossible() throws IOException {
        // Each step runs only while isReady() is true: writing or flushing while a write is pending loses bytes.
        if (!written) {
            written = true;
            out.write(answer);
        }
        if (!out.isReady()) {
            return; // the container calls again once the socket has taken what is pending
        }
        if (!flushed) {
            // Push out what Tomcat still buffers before completing: completion (and so the in-flight count a
            // draining stop waits on) would otherwise run ahead of the last bytes.
            flushed = true;
            out.flush();
            if (!out.isReady()) {
                return;
            }
        }
        finish();
    }

    @Override
    public void onError(Throwable failure) {
        finish();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        if (!response.isCommitted()) {
            response.setStatus(HttpServletResponse.SC_REQUEST_TIMEOUT);
        }
        finish();
    }

    @Override
    public void onError(AsyncEvent event) {
        finish();
    }

    @Override
    public void onComplete(AsyncEvent event) {
        synchronized (this) {
            finished = true;
            if (pendingAnswer != null) {
                pendingAnswer.cancel(false);
            }
        }
        onFinished.run();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // never restarted
    }

    private void finish() {
        synchronized (this) {
            if (finished) {
                return;
            }
            finished = true;
        }
        try {
            async.complete();
        } catch (IllegalStateException alreadyCompleted) {
            // the container completed it first (timeout or error dispatch)
        }
    }
}
