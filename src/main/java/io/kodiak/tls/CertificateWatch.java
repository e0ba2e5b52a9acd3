package io.kodiak.tls;

import io.kodiak.transport.Deadline;
import org.glassfish.grizzly.utils.DelayedExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Re-reads the listener's certificates and keys, and its client-ca file when clients present
 * certificates, when their files change, checked every
 * {@link #CHECK_MILLIS} on the transport's timer: new handshakes use the new pairs, connections
 * already open keep theirs. A change that cannot be loaded (a half-written file, a key that does
 * not match) keeps the pairs in use and is logged once; the next change is tried again.
 */
public final class CertificateWatch {
    static final long CHECK_MILLIS = 1000;
    private static final Logger LOG = LoggerFactory.getLogger(CertificateWatch.class);

    private final ServerTls tls;
    private final List<Path> files;
    private final DelayedExecutor timers;
    /** On the timer from {@link #start} to {@link #stop}: a watch prepared for a refused reload costs the timer nothing. */
    private DelayedExecutor.DelayQueue<CertificateWatch> queue;
    private final Deadline due = new Deadline();
    private String seen;

    public CertificateWatch(ServerTls tls, TlsSettings settings, DelayedExecutor timers) {
        this.tls = tls;
        List<Path> watched = new ArrayList<>(List.of(settings.certificate(), settings.key()));
        for (TlsSettings.Sni sni : settings.sni()) {
            watched.add(sni.certificate());
            watched.add(sni.key());
        }
        if (settings.clientAuth() != TlsSettings.ClientAuth.NONE) {
            watched.add(settings.clientCa());
        }
        this.files = List.copyOf(watched);
        this.seen = fingerprint();
        this.timers = timers;
    }

    public synchronized void start() {
        if (queue != null) {
            return;
        }
        queue = timers.createDelayQueue(watch -> {
            watch.check();
            return false;
        }, Deadline.resolver(watch -> watch.due));
        queue.add(this, CHECK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** The watch leaves the timer (a reload that replaces a listener's TLS settings stops the old one). */
    public synchronized void stop() {
        due.close();
        if (queue != null) {
            queue.destroy();
        }
    }

    /** On the timer thread. */
    private void check() {
        due.set(System.currentTimeMillis() + CHECK_MILLIS);
        String now = fingerprint();
        if (now.equals(seen)) {
            return;
        }
        seen = now;
        try {
            tls.reload();
            LOG.info("TLS certificates reloaded from {}: new handshakes use them", files);
        } catch (PemMaterial.Unusable e) {
            LOG.warn("TLS certificates changed but cannot be used, the previous ones stay in use: {}", e.getMessage());
        }
    }

    private String fingerprint() {
        return FileFingerprint.of(files);
    }
}
