package io.kodiak.limits;

import java.util.HashMap;
import java.util.Map;

/**
 * The request limiters of one configuration: proxy.limits' and each route's. A reload keeps a
 * limiter whose settings did not change (same scope, same rate, burst, key and size), with the
 * state of its buckets: reloading must not hand every client a fresh burst.
 */
public final class Limits {
    public static final Limits NONE = new Limits(null, Map.of());

    /** Where a limiter finds the key of a request (its client address, or a header's value). */
    public interface Keys {
        String keyFor(LimitKey key);
    }

    private final RequestLimiter global;
    /** By route name. */
    private final Map<String, RequestLimiter> routes;

    private Limits(RequestLimiter global, Map<String, RequestLimiter> routes) {
        this.global = global;
        this.routes = routes;
    }

    /**
     * The limiters for {@code global} and each route's ({@code byRoute}: by route name), taken from
     * {@code previous} where unchanged.
     */
    public static Limits of(LimitSettings global, Map<String, LimitSettings> byRoute, Limits previous) {
        RequestLimiter globalLimiter = global.isOn() ? reuse(previous.global, global) : null;
        Map<String, RequestLimiter> routeLimiters = new HashMap<>();
        byRoute.forEach((name, settings) -> {
            if (settings.isOn()) {
                routeLimiters.put(name, reuse(previous.routes.get(name), settings));
            }
        });
        return globalLimiter == null && routeLimiters.isEmpty() ? NONE : new Limits(globalLimiter, Map.copyOf(routeLimiters));
    }

    private static RequestLimiter reuse(RequestLimiter previous, LimitSettings settings) {
        return previous != null && previous.settings().equals(settings) ? previous : new RequestLimiter(settings);
    }

    public boolean isEmpty() {
        return this == NONE;
    }

    /**
     * Takes a request for the route named {@code routeName}: 0 when every limit on its way lets it
     * pass, else the nanoseconds until it would have (proxy.limits is asked first, then the route's).
     */
    public long take(String routeName, Keys keys, long nowNanos) {
        if (global != null) {
            long wait = global.take(keys.keyFor(global.settings().key()), nowNanos);
            if (wait > 0) {
                return wait;
            }
        }
        RequestLimiter own = routes.isEmpty() ? null : routes.get(routeName);
        return own == null ? 0 : own.take(keys.keyFor(own.settings().key()), nowNanos);
    }

    /** For tests: the limiter of a route (null when it has none), or proxy.limits' when {@code routeName} is null. */
    public RequestLimiter limiter(String routeName) {
        return routeName == null ? global : routes.get(routeName);
    }

}
