package io.kodiak.support;

import io.kodiak.loop.EventLoop;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a test's step on an event loop, as the forwarding path runs, and hands back what it returns. */
public final class OnLoop {
    private OnLoop() {
    }

    public static <T> T call(EventLoop loop, Callable<T> task) throws Exception {
        CompletableFuture<T> done = new CompletableFuture<>();
        loop.post(() -> {
            try {
                done.complete(task.call());
            } catch (Throwable failed) {
                done.completeExceptionally(failed);
            }
        });
        return done.get(10, TimeUnit.SECONDS);
    }
}
