package io.kodiak.stub.embedded;

import io.kodiak.stub.DelayMode;
import io.kodiak.stub.SettingParser;
import io.kodiak.stub.StubSettings;
import java.util.Map;

/**
 * Everything the embedded stub is started with. {@code threads} is Tomcat's worker pool: in blocking mode it
 * bounds how many requests can wait at once (threads / delay is the ceiling), in async mode it only runs the
 * short read and write steps.
 */
public record StubServerConfig(String host, int port, int threads, StubSettings settings) {
    public static final String HOST_VARIABLE = "STUB_HOST";
    public static final String PORT_VARIABLE = "STUB_PORT";
    public static final String THREADS_VARIABLE = "STUB_THREADS";
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 8080;
    /** Tomcat's own default, so blocking mode behaves like the 2015 Tomcat 8. */
    public static final int DEFAULT_BLOCKING_THREADS = 200;
    /** Async work is a few microseconds per step; more threads than this only add context switches. */
    public static final int DEFAULT_ASYNC_THREADS = 8;
    static final int MAX_THREADS = 10_000;

    public StubServerConfig {
        if (host == null || host.isBlank()) {
            throw SettingParser.invalid(HOST_VARIABLE, String.valueOf(host), "a host name or IP address");
        }
        if (port < 0 || port > 65_535) {
            throw SettingParser.invalid(PORT_VARIABLE, Integer.toString(port), "an integer from 1 to 65535");
        }
        if (threads < 1 || threads > MAX_THREADS) {
            throw SettingParser.invalid(THREADS_VARIABLE, Integer.toString(threads),
                    "an integer from 1 to " + MAX_THREADS);
        }
    }

    /** Port 0 picks a free ephemeral port (tests); the environment may not ask for it. */
    public static StubServerConfig ephemeral(int delayMs, DelayMode mode, int threads) {
        return new StubServerConfig(DEFAULT_HOST, 0, threads, new StubSettings(delayMs, mode));
    }

    public static StubServerConfig fromEnvironment(Map<String, String> env) {
        String host = env.get(HOST_VARIABLE);
        if (host == null || host.isBlank()) {
            host = DEFAULT_HOST;
        }
        int port = SettingParser.integer(PORT_VARIABLE, env.get(PORT_VARIABLE), DEFAULT_PORT, 1, 65_535);
        StubSettings settings = StubSettings.from(env::get);
        int defaultThreads = settings.mode() == DelayMode.BLOCKING ? DEFAULT_BLOCKING_THREADS : DEFAULT_ASYNC_THREADS;
        int threads = SettingParser.integer(THREADS_VARIABLE, env.get(THREADS_VARIABLE), defaultThreads, 1,
                MAX_THREADS);
        return new StubServerConfig(host.trim(), port, threads, settings);
    }
}
