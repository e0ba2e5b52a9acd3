package io.kodiak.daemon;

import ch.qos.logback.classic.LoggerContext;
import io.kodiak.Kodiak;
import io.kodiak.admin.Monitoring;
import io.kodiak.admin.SettingsReport;
import io.kodiak.admin.Version;
import io.kodiak.config.ConfigException;
import io.kodiak.config.ConfigLoader;
import io.kodiak.config.ProxyConfig;
import io.kodiak.routing.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Command line entry: {@code kodiak [--print-settings] [-c FILE | FILE]} (default conf/proxy.conf),
 * or {@code kodiak --version}.
 * Exit codes: 0 after a clean stop (143, the JVM's own, when SIGTERM stopped it), 1 when the listener or the admin listener cannot start, 2 for
 * invalid configuration or usage. {@code --print-settings} validates the configuration and prints
 * what bin/proxy.sh needs to know about it, without starting anything. SIGHUP reloads the
 * configuration, as does the admin listener's POST /reload ({@link Reloads}, {@link Reloader}).
 */
public final class Main {
    private static final Logger LOG = LoggerFactory.getLogger(Main.class);

    private Main() {
    }

    public static void main(String[] args) throws InterruptedException {
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();

        if (args.length == 1 && args[0].equals("--version")) {
            System.out.println("Kodiak " + Version.current());
            return;
        }
        boolean printSettings = args.length > 0 && args[0].equals("--print-settings");
        if (printSettings) {
            args = java.util.Arrays.copyOfRange(args, 1, args.length);
        }
        File file;
        if (args.length == 0) {
            file = new File("conf/proxy.conf");
        } else if (args.length == 1 && !args[0].startsWith("-")) {
            file = new File(args[0]);
        } else if (args.length == 2 && args[0].equals("-c")) {
            file = new File(args[1]);
        } else {
            System.err.println("usage: kodiak [--print-settings] [-c FILE | FILE]   (default conf/proxy.conf) | --version");
            System.exit(2);
            return;
        }

        // Before any TLS handshake can happen (see ServerTls).
        System.setProperty(io.kodiak.tls.ServerTls.REJECT_RENEGOTIATION, "true");
        ProxyConfig config;
        try {
            config = ConfigLoader.load(file);
        } catch (ConfigException e) {
            System.err.println("kodiak: refusing to start, " + file + ": " + e.getMessage());
            System.exit(2);
            return;
        }

        if (printSettings) {
            SettingsReport.print(config, System.out);
            return;
        }

        Monitoring monitoring = new Monitoring(config);
        // Before anything listens: the JVM's own SIGHUP handling is to exit, and bin/proxy.sh may
        // ask for a reload as soon as the listener accepts. Reloads wait until the start is done.
        CountDownLatch started = new CountDownLatch(1);
        Reloads reloads = Reloads.onSignal(started);
        Kodiak kodiak = new Kodiak(config, monitoring.observer(), monitoring.tlsObserver(), monitoring.http2Observer());
        try {
            monitoring.start(kodiak, reloads);
        } catch (IOException e) {
            System.err.println("kodiak: cannot listen on admin " + config.admin().host() + ":"
                    + config.admin().port() + " (proxy.admin): " + e.getMessage());
            System.exit(1);
            return;
        }
        try {
            kodiak.start();
        } catch (IOException e) {
            System.err.println("kodiak: cannot listen on " + e.getMessage());
            System.exit(1);
            return;
        }
        monitoring.proxyListening();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // The grace period in service: a reload may have changed it since start.
            LOG.info("stopping: draining in-flight exchanges (grace period {})", kodiak.config().shutdownGracePeriod());
            kodiak.stop();
            monitoring.stop();
            PidFile.removeIfOurs(System.getProperty("kodiak.pid-file"));
            LOG.info("stopped");
            // Last: logback's stop writes what buffered appenders (the access log's) still hold.
            if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logging) {
                logging.stop();
            }
            stopped.countDown();
        }, "kodiak-shutdown"));

        String settingsFile = System.getProperty("kodiak.settings-file");
        Reloader reloader = new Reloader(kodiak, monitoring, file, LogConfiguration.fromSystemProperty(),
                settingsFile == null || settingsFile.isBlank() ? null : java.nio.file.Path.of(settingsFile));
        reloader.recordSettings(config, file);
        reloads.serve(reloader);
        started.countDown();

        LOG.info("Kodiak {} on Java {} ({})", Version.current(), Runtime.version(), System.getProperty("java.vm.name"));
        List<ProxyConfig.Endpoint> endpoints = config.endpoints();
        for (int i = 0; i < endpoints.size(); i++) {
            LOG.info("Kodiak listening on {}:{} ({}, {})", endpoints.get(i).host(), kodiak.listener().port(i),
                    endpoints.get(i).scheme(), endpoints.get(i).key());
        }
        LOG.info("io-strategy {}, {} selector threads, up to {} client connections",
                config.listener().ioStrategy().configName(), config.listener().selectorThreads(),
                kodiak.listener().maxConnections());
        LOG.info("write queues: {} bytes per connection, {} bytes for all connections together ({})",
                kodiak.services().writeQueues().perConnection(), kodiak.services().writeQueues().budget(),
                config.buffers().maxQueued() > 0 ? "proxy.buffers.max-queued" : "a quarter of the maximum heap");
        for (String warning : config.warnings()) {
            LOG.warn("{}", warning);
        }
        if (monitoring.enabled()) {
            LOG.info("admin listening on {}:{} (GET /health, /metrics, /upstreams, /status; POST /reload)", config.admin().host(),
                    monitoring.port());
        }
        for (Route route : config.routes()) {
            LOG.info("route {} -> {}{}", route.name(), route.upstreamUrl(), route.preserveHost() ? " (preserve-host)" : "");
        }
        stopped.await();
    }
}
