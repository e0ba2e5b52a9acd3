package io.kodiak.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * proxy.tracing: read and checked whether tracing is on or off, so a file that turns it on later
 * (at a restart) was already refused or accepted as it stands.
 */
final class TracingReader {
    private static final String ENDPOINT_EXPECTED =
            "an http:// or https:// URL with a host, e.g. \"http://127.0.0.1:4318/v1/traces\"";
    private final ConfigReader keys;

    TracingReader(ConfigReader keys) {
        this.keys = keys;
    }

    ProxyConfig.Tracing read(String at) {
        boolean enabled = keys.bool(at + ".enabled");
        double sampler = keys.doubleInRange(at + ".sampler", 0, 1,
                "a share of new traces from 0 to 1, e.g. 0.01 (one in a hundred)");
        String serviceName = keys.read(at + ".service-name", keys.config()::getString, "a non-empty string", "");
        if (serviceName.isBlank()) {
            keys.problem(at + ".service-name", keys.render(at + ".service-name"), "a non-empty service name");
        }
        int queued = keys.intInRange(at + ".max-queued-spans", 1, 1_000_000, "a span count from 1 to 1000000");
        URI endpoint = endpoint(at + ".otlp.endpoint");
        return new ProxyConfig.Tracing(enabled, sampler, serviceName, endpoint, queued);
    }

    private URI endpoint(String key) {
        String text = keys.read(key, keys.config()::getString, ENDPOINT_EXPECTED, "");
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            keys.problem(key, keys.render(key), ENDPOINT_EXPECTED);
            return null;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        // The exporter would take a URL without a host, or with user info or a fragment, and fail
        // at its first export, long after the start said nothing: refused here instead.
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null || uri.getRawUserInfo() != null
                || uri.getRawFragment() != null) {
            keys.problem(key, keys.render(key), ENDPOINT_EXPECTED);
            return null;
        }
        return uri;
    }
}
