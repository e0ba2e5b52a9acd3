package io.kodiak.admin;

import io.kodiak.config.ProxyConfig;
import io.kodiak.routing.Route;

import java.io.PrintStream;

/**
 * The effective settings the command line (bin/proxy.sh, io.kodiak.daemon.cli) needs before and
 * after it starts the daemon (where to wait for the listener, the admin address and token file,
 * how long a stop may drain, the routes to show), as {@code key=value} lines: the daemon records
 * them in logs/proxy.settings at start and at each reload, for status and stop to read.
 */
public final class SettingsReport {
    private SettingsReport() {
    }

    public static void print(ProxyConfig config, PrintStream out) {
        print(config, config.admin(), config.tracing(), out);
    }

    /**
     * {@code admin}: the admin listener as it runs, which a reload does not switch on or off
     * (restart-only); {@code tracing}: proxy.tracing as it runs, restart-only too.
     */
    public static void print(ProxyConfig config, ProxyConfig.Admin admin, ProxyConfig.Tracing tracing, PrintStream out) {
        out.println("listener_host=" + config.listener().host());
        out.println("listener_port=" + config.listener().port());
        out.println("listener_scheme=" + (config.listener().tls() == null ? "http" : "https"));
        for (ProxyConfig.Endpoint more : config.moreListeners()) {
            out.println("more_listener=" + more.scheme() + " " + more.host() + " " + more.port());
        }
        out.println("admin_enabled=" + admin.enabled());
        out.println("admin_host=" + admin.host());
        out.println("admin_port=" + admin.port());
        if (config.admin().token() != null) {
            // As in service: a reload may set or change it, and bin/proxy.sh reload presents it.
            out.println("admin_token_file=" + config.admin().token().file());
        }
        out.println("tracing_enabled=" + tracing.enabled());
        if (tracing.enabled()) {
            out.println("tracing_sampler=" + tracing.sampler());
            out.println("tracing_endpoint=" + tracing.endpoint());
        }
        long graceMillis = config.shutdownGracePeriod().toMillis();
        out.println("grace_seconds=" + (graceMillis + 999) / 1000);
        for (Route route : config.routes()) {
            out.println("route=" + route.name() + " -> " + route.upstreamUrl()
                    + (route.preserveHost() ? " (preserve-host)" : ""));
        }
    }
}
