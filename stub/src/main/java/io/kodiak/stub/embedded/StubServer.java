package io.kodiak.stub.embedded;

import io.kodiak.stub.InFlight;
import io.kodiak.stub.ServiceStubServlet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Stream;
import org.apache.catalina.Globals;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.http11.Http11NioProtocol;

/** The stub servlet in an embedded Tomcat whose connector is sized for 10,000 concurrent clients. */
public final class StubServer implements AutoCloseable {
    public static final String CONTEXT_PATH = "/ProxiedServiceStub";
    public static final String SERVLET_PATH = "/ServiceStubServlet";
    public static final String PATH = CONTEXT_PATH + SERVLET_PATH;

    // 10,000 clients plus headroom, below the 20,000 open files a process may hold here.
    static final int MAX_CONNECTIONS = 16_384;
    // The kernel caps the backlog at net.core.somaxconn (4096 here); ask for more so that cap is the only one.
    static final int ACCEPT_COUNT = 10_000;
    static final int CONNECTION_TIMEOUT_MS = 20_000;
    // Longer than any proxy's idle pool timeout we expect, so the stub is rarely the side that closes first.
    static final int KEEP_ALIVE_TIMEOUT_MS = 120_000;

    private final StubServerConfig config;
    private final Path workDir;
    private final Tomcat tomcat;
    private final Connector connector;
    private final ServiceStubServlet servlet;

    private StubServer(StubServerConfig config, ScheduledExecutorService delays) throws IOException {
        this.config = config;
        this.workDir = Files.createTempDirectory("kodiak-stub-");
        this.servlet = delays == null ? new ServiceStubServlet(config.settings())
                : new ServiceStubServlet(config.settings(), delays);
        // Tomcat keeps catalina.home JVM-wide and re-creates it for every later instance: point it at this
        // instance's own directory, or a second stub in the same JVM resurrects the first one's deleted one.
        System.setProperty(Globals.CATALINA_HOME_PROP, workDir.toString());
        this.tomcat = new Tomcat();
        tomcat.setBaseDir(workDir.toString());
        this.connector = newConnector(config);
        tomcat.setConnector(connector);
        StandardContext context = (StandardContext) tomcat.addContext(CONTEXT_PATH, workDir.toString());
        // Leak hunting at undeploy needs --add-opens and only warns here: the stub loads no classes of its own.
        context.setClearReferencesObjectStreamClassCaches(false);
        context.setClearReferencesRmiTargets(false);
        context.setClearReferencesThreadLocals(false);
        Wrapper wrapper = Tomcat.addServlet(context, "ServiceStubServlet", servlet);
        wrapper.setAsyncSupported(true);
        wrapper.setLoadOnStartup(1);
        context.addServletMappingDecoded(SERVLET_PATH, "ServiceStubServlet");
    }

    public static StubServer start(StubServerConfig config) throws IOException {
        return start(config, null);
    }

    /** As {@link #start(StubServerConfig)}, async delays run on {@code delays} (tests hold it to hold every delay). */
    static StubServer start(StubServerConfig config, ScheduledExecutorService delays) throws IOException {
        StubServer server = new StubServer(config, delays);
        try {
            server.tomcat.start();
        } catch (LifecycleException failed) {
            server.close();
            throw new IOException("the stub could not listen on " + config.host() + ":" + config.port() + ": "
                    + rootMessage(failed), failed);
        }
        return server;
    }

    private static Connector newConnector(StubServerConfig config) throws IOException {
        Connector connector = new Connector(Http11NioProtocol.class.getName());
        connector.setPort(config.port());
        // By default Tomcat logs a failed bind and runs on without the connector; the caller must hear about it.
        connector.setThrowOnFailure(true);
        // "Every method answers the same way": without this Tomcat itself rejects TRACE with 405.
        connector.setAllowTrace(true);
        Http11NioProtocol protocol = (Http11NioProtocol) connector.getProtocolHandler();
        protocol.setAddress(InetAddress.getByName(config.host()));
        protocol.setMaxThreads(config.threads());
        protocol.setMinSpareThreads(Math.min(config.threads(), 10));
        protocol.setMaxConnections(MAX_CONNECTIONS);
        protocol.setAcceptCount(ACCEPT_COUNT);
        protocol.setMaxKeepAliveRequests(-1);
        protocol.setKeepAliveTimeout(KEEP_ALIVE_TIMEOUT_MS);
        protocol.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
        protocol.setTcpNoDelay(true);
        return connector;
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }

    /** The port actually bound (the ephemeral one when configured with 0). */
    public int port() {
        return connector.getLocalPort();
    }

    public StubServerConfig config() {
        return config;
    }

    public InFlight inFlight() {
        return servlet.inFlight();
    }

    public String url() {
        String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
        return "http://" + host + ":" + port() + PATH;
    }

    /**
     * Stops accepting, lets the exchanges already in flight finish (up to {@code grace}), then stops Tomcat.
     * Returns how many exchanges were still running when the grace period ended.
     */
    public int stop(Duration grace) {
        int abandoned = 0;
        try {
            connector.pause();
            if (!inFlight().await(n -> n == 0, grace)) {
                abandoned = inFlight().count();
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            abandoned = inFlight().count();
        }
        close();
        return abandoned;
    }

    @Override
    public void close() {
        // Destroy even when stop fails (as it does after a failed start), or Tomcat's leftovers outlive the work dir.
        try {
            tomcat.stop();
        } catch (LifecycleException alreadyBroken) {
            // destroy below still releases what start acquired
        }
        try {
            tomcat.destroy();
        } catch (LifecycleException alreadyBroken) {
            // nothing more to release
        }
        deleteWorkDir();
    }

    private void deleteWorkDir() {
        try (Stream<Path> paths = Files.walk(workDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // a temp dir left behind is harmless
        }
    }
}
