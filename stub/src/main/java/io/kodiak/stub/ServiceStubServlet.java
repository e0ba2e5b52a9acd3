package io.kodiak.stub;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The ProxiedServiceStub servlet: every method reads the body, waits the delay and answers
 * {@code <body>-appended by servlet <date>}.
 *
 * <p>Deployed from web.xml it reads STUB_DELAY_MS and STUB_MODE from its init parameters, else from the
 * environment; embedded, it is given its settings.
 */
public class ServiceStubServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private transient StubSettings settings;
    private final transient AppendedAnswer answers = AppendedAnswer.localTime();
    private final transient InFlight inFlight = new InFlight();
    private transient ScheduledExecutorService scheduler;

    public ServiceStubServlet() {
    }

    public ServiceStubServlet(StubSettings settings) {
        this.settings = settings;
    }

    /**
     * Async mode's delays run on {@code delays} instead of a scheduler of the servlet's own: a test that holds
     * that executor's thread holds every delay, so it can see how many requests wait at once without racing a
     * clock. The servlet shuts it down on destroy.
     */
    public ServiceStubServlet(StubSettings settings, ScheduledExecutorService delays) {
        this.settings = settings;
        this.scheduler = delays;
    }

    @Override
    public void init() throws ServletException {
        if (settings == null) {
            try {
                settings = StubSettings.from(this::initParameterOrEnvironment);
            } catch (IllegalArgumentException badSetting) {
                throw new ServletException(badSetting.getMessage(), badSetting);
            }
        }
        if (settings.mode() == DelayMode.ASYNC && scheduler == null) {
            scheduler = newScheduler();
        }
        log("ProxiedServiceStub ready: mode " + settings.mode().label() + ", delay " + settings.delayMs() + " ms");
    }

    // Overriding service, not doGet/doPost…, is what makes PROPFIND and any other method answer the same way.
    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        inFlight.enter();
        if (settings.mode() == DelayMode.ASYNC) {
            startAsync(request, response);
            return;
        }
        try {
            BlockingExchange.handle(request, response, settings.delayMs(), answers);
        } finally {
            inFlight.leave();
        }
    }

    private void startAsync(HttpServletRequest request, HttpServletResponse response) throws IOException {
        AsyncExchange exchange;
        try {
            exchange = new AsyncExchange(request, response, settings.delayMs(), scheduler, answers, inFlight::leave);
        } catch (RuntimeException cannotSuspend) {
            inFlight.leave();
            throw cannotSuspend;
        }
        // From here the exchange's completion listener owns the in-flight count.
        exchange.start();
    }

    @Override
    public void destroy() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }

    public StubSettings settings() {
        return settings;
    }

    public InFlight inFlight() {
        return inFlight;
    }

    private String initParameterOrEnvironment(String name) {
        String value = getInitParameter(name);
        return value != null ? value : System.getenv(name);
    }

    private static ScheduledExecutorService newScheduler() {
        // One thread is plenty: each task only hands a finished wait back to the container.
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "stub-delay");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }
}
