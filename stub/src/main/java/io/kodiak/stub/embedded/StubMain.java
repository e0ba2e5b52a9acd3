package io.kodiak.stub.embedded;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/** Runs the stub until SIGTERM/SIGINT; configured by STUB_HOST, STUB_PORT, STUB_DELAY_MS, STUB_MODE, STUB_THREADS. */
public final class StubMain {
    private StubMain() {
    }

    public static void main(String[] args) throws Exception {
        StubServerConfig config;
        try {
            config = StubServerConfig.fromEnvironment(System.getenv());
        } catch (IllegalArgumentException badSetting) {
            System.err.println("kodiak-stub: " + badSetting.getMessage());
            System.exit(2);
            return;
        }
        StubServer server;
        try {
            server = StubServer.start(config);
        } catch (IOException cannotListen) {
            System.err.println("kodiak-stub: " + cannotListen.getMessage());
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // Exchanges already waiting get their answer: at most one delay plus a little writing time.
            Duration grace = Duration.ofMillis(config.settings().delayMs() + 5_000L);
            int abandoned = server.stop(grace);
            System.out.println("kodiak-stub stopped" + (abandoned > 0 ? " (" + abandoned + " exchanges cut short)" : ""));
            stopped.countDown();
        }, "stub-shutdown"));
        System.out.printf("kodiak-stub listening on %s (mode %s, delay %d ms, threads %d)%n", server.url(),
                config.settings().mode().label(), config.settings().delayMs(), config.threads());
        stopped.await();
    }
}
