package io.kodiak.limits;

/**
 * One request limit (proxy.limits, or a route's limits): at most {@code requestsPerSecond} per
 * key on average, with up to {@code burst} more at once (nginx's limit_req with burst and
 * nodelay: burst + 1 requests may arrive together). {@code maxKeys}: how many keys are tracked
 * at most (the least recently seen is forgotten first). A rate of 0 is off.
 */
public record LimitSettings(double requestsPerSecond, int burst, LimitKey key, int maxKeys) {
    public static final LimitSettings OFF = new LimitSettings(0, 0, LimitKey.CLIENT_ADDRESS, 1);

    public boolean isOn() {
        return requestsPerSecond > 0;
    }
}
