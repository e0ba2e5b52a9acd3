package io.kodiak.log;

import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.util.Duration;
import ch.qos.logback.core.recovery.RecoveryListener;
import ch.qos.logback.core.recovery.ResilientOutputStreamBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A rolling file appender that writes lines into its buffer ({@code bufferSize}, logback's) and hands
 * the buffer to the file when it fills or {@code flushInterval} after the last flush, whichever comes
 * first: nginx's {@code access_log ... buffer=64k flush=1s}. The access log used to flush every line
 * (one write(2) each) from an AsyncAppender's thread, and the hand-off to that thread woke it for
 * every request; together that cost 8-11 µs of CPU per request (docs/routing.md, "What it costs").
 * Written in place on the calling thread, a line is a copy into memory; a write to the file happens
 * once per buffer. Lines reach the file at most {@code flushInterval} late, and all of them at stop
 * (logback's stop closes the stream; Kodiak stops logback last thing in its shutdown).
 *
 * <p>The periodic flush takes the appender's own stream lock, the one every write holds, so a flush
 * never interleaves with a line being written or a rollover swapping the file.
 */
public class BufferedRollingFileAppender<E> extends RollingFileAppender<E> {
    private static final Logger LOG = LoggerFactory.getLogger(BufferedRollingFileAppender.class);
    /** Writing fails (said once in the application log); guarded by the stream lock, as the next two. */
    private boolean failing;
    /** Failures logback reported, to tell whether a flush failed. */
    private long failures;
    /** The file's length when writing started to fail: once it changes, bytes reach the file again. */
    private long sizeAtFailure;
    /** How the periodic flush is run: on a daemon thread of its own; tests run the ticks themselves. */
    interface FlushTimer {
        /** Runs {@code flush} every {@code millis}, the first time one interval from now; the result stops it. */
        Runnable every(String threadName, long millis, Runnable flush);
    }

    private static final FlushTimer THREAD = (threadName, millis, flush) -> {
        ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        flusher.scheduleWithFixedDelay(flush, millis, millis, TimeUnit.MILLISECONDS);
        return flusher::shutdownNow;
    };

    private final FlushTimer timer;
    private Duration flushInterval = Duration.buildBySeconds(1);
    private Runnable stopFlusher;

    public BufferedRollingFileAppender() {
        this(THREAD);
    }

    /** Tests: the periodic flush runs when {@code timer} says, so "after the interval" is a step, not a race. */
    BufferedRollingFileAppender(FlushTimer timer) {
        this.timer = timer;
        setImmediateFlush(false);
    }

    /** How late a line may reach the file (logback duration syntax: "1 second", "500 milliseconds"). */
    public void setFlushInterval(Duration flushInterval) {
        this.flushInterval = flushInterval;
    }

    @Override
    public void start() {
        if (flushInterval == null || flushInterval.getMilliseconds() <= 0) {
            addError("flushInterval must be positive, was " + flushInterval + ": appender [" + name + "] not started");
            return;
        }
        super.start();
        if (!isStarted() || isImmediateFlush()) {
            return;
        }
        stopFlusher = timer.every("log-flush-" + name, flushInterval.getMilliseconds(), this::flush);
    }

    @Override
    public void stop() {
        if (stopFlusher != null) {
            stopFlusher.run();
            stopFlusher = null;
        }
        super.stop(); // closes the stream, which writes what the buffer still holds
    }

    /**
     * Logback retries a file it failed to write (a full disk) on its own, with a growing back-off,
     * and drops the lines meanwhile; it tells only its internal status list, which nothing prints.
     * The application log says it instead, once when writing starts to fail and once when it
     * works again, as nginx logs its failed write()s. Logback's own "recovered" comes as soon as a
     * reopened file takes a line into its buffer, before anything reached the disk, so it is not
     * believed: writing works again when a flush of ours fails no more and the file has grown.
     */
    @Override
    public void setOutputStream(OutputStream outputStream) {
        super.setOutputStream(outputStream);
        if (outputStream instanceof ResilientOutputStreamBase resilient) {
            resilient.addRecoveryListener(new RecoveryListener() {
                @Override
                public void newFailure(IOException e) {
                    // Under the stream lock: logback fails inside a write or a flush, both of which hold it.
                    failures++;
                    if (!failing) {
                        failing = true;
                        sizeAtFailure = new File(getFile()).length();
                        LOG.warn("{}: writing {} failed ({}): its lines are dropped until it can be written again"
                                + " (retried on its own)", getName(), getFile(), e.getMessage());
                    }
                }

                @Override
                public void recoveryOccured() {
                    // Said by flush() instead, once bytes reached the file.
                }
            });
        }
    }

    /** Writes the buffered lines to the file now. */
    public void flush() {
        streamWriteLock.lock();
        try {
            OutputStream out = getOutputStream();
            if (out != null && isStarted()) {
                long before = failures;
                out.flush();
                if (failing && failures == before && new File(getFile()).length() != sizeAtFailure) {
                    failing = false;
                    LOG.info("{}: writing {} works again", getName(), getFile());
                }
            }
        } catch (IOException e) {
            addError("flushing " + getFile() + " failed", e);
        } finally {
            streamWriteLock.unlock();
        }
    }
}
