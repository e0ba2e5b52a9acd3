package io.kodiak.admin;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The meters one route writes on every exchange, resolved once at start-up so that recording an
 * exchange is a few adder increments and two latency samples handed to the {@link TimerFeed},
 * never a registry lookup.
 */
final class RouteMeters {
    /** Status classes by {@code status / 100}; index 0 collects anything outside 100-599. */
    private static final String[] STATUS_CLASSES = {"other", "1xx", "2xx", "3xx", "4xx", "5xx"};

    private final Counter[] requestsByClass = new Counter[STATUS_CLASSES.length];
    private final Timer duration;
    private final Counter bodyBytesIn;
    private final Counter bodyBytesOut;
    /** Null for requests Kodiak answered itself (no route): they never reach an upstream. */
    private final Timer upstreamDuration;
    private final TimerFeed timerFeed;

    RouteMeters(MeterRegistry registry, String routeLabel, Timer upstreamDuration, TimerFeed timerFeed) {
        this.timerFeed = timerFeed;
        for (int i = 0; i < STATUS_CLASSES.length; i++) {
            requestsByClass[i] = Counter.builder("kodiak.requests")
                    .description("Finished exchanges by route and response status class (499 = client left first)")
                    .tag("route", routeLabel)
                    .tag("status_class", STATUS_CLASSES[i])
                    .register(registry);
        }
        duration = MeterDefinitions.latency("kodiak.request.duration",
                "Time from the request's arrival to the end of its response, as the client saw it")
                .tag("route", routeLabel)
                .register(registry);
        bodyBytesIn = Counter.builder("kodiak.request.body")
                .description("Request body bytes received from clients (bytes in)")
                .baseUnit("bytes")
                .tag("route", routeLabel)
                .register(registry);
        bodyBytesOut = Counter.builder("kodiak.response.body")
                .description("Response body bytes sent to clients (bytes out)")
                .baseUnit("bytes")
                .tag("route", routeLabel)
                .register(registry);
        this.upstreamDuration = upstreamDuration;
    }

    /** The route is gone (a reload removed it): its series leave the registry. */
    void removeFrom(MeterRegistry registry) {
        for (Counter counter : requestsByClass) {
            registry.remove(counter);
        }
        registry.remove(duration);
        registry.remove(bodyBytesIn);
        registry.remove(bodyBytesOut);
    }

    void record(int status, long bytesIn, long bytesOut, long upstreamNanos, long totalNanos) {
        int statusClass = status / 100;
        requestsByClass[statusClass >= 1 && statusClass <= 5 ? statusClass : 0].increment();
        timerFeed.record(duration, totalNanos);
        if (bytesIn > 0) {
            bodyBytesIn.increment(bytesIn);
        }
        if (bytesOut > 0) {
            bodyBytesOut.increment(bytesOut);
        }
        if (upstreamNanos >= 0 && upstreamDuration != null) {
            timerFeed.record(upstreamDuration, upstreamNanos);
        }
    }
}
