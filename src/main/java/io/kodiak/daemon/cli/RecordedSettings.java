package io.kodiak.daemon.cli;

import io.kodiak.admin.SettingsReport;
import io.kodiak.config.ProxyConfig;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The settings the command line shows and needs (listeners, admin address, grace period, routes),
 * from {@link SettingsReport}'s {@code key=value} lines: those the daemon recorded, or those of a
 * configuration about to be started. One reading for both, so start and status say the same.
 */
record RecordedSettings(List<String> listenerUrls, List<String> extraAddresses, boolean adminEnabled, String adminHost,
                        int adminPort, String adminTokenFile, boolean tracing, String tracingSampler,
                        String tracingEndpoint, long graceSeconds, List<String> routes, String configFile) {

    static RecordedSettings of(ProxyConfig config) {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8)) {
            SettingsReport.print(config, out);
        }
        return parse(text.toString(StandardCharsets.UTF_8).lines().toList());
    }

    static RecordedSettings parse(List<String> lines) {
        String host = "127.0.0.1";
        String port = "9401";
        String scheme = "http";
        List<String> more = new ArrayList<>();
        List<String> extraAddresses = new ArrayList<>();
        boolean adminEnabled = false;
        String adminHost = "127.0.0.1";
        int adminPort = 9481;
        String tokenFile = null;
        boolean tracing = false;
        String sampler = "";
        String endpoint = "";
        long grace = 30;
        List<String> routes = new ArrayList<>();
        String configFile = null;
        for (String line : lines) {
            int eq = line.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String value = line.substring(eq + 1);
            switch (line.substring(0, eq)) {
                case "listener_host" -> host = value;
                case "listener_port" -> port = value;
                case "listener_scheme" -> scheme = value;
                case "more_listener" -> {
                    String[] parts = value.split(" ");
                    more.add(parts[0] + "://" + urlHost(parts[1]) + ":" + parts[2]);
                    extraAddresses.add(parts[1] + " " + parts[2]);
                }
                case "admin_enabled" -> adminEnabled = Boolean.parseBoolean(value);
                case "admin_host" -> adminHost = value;
                case "admin_port" -> adminPort = Integer.parseInt(value);
                case "admin_token_file" -> tokenFile = value;
                case "tracing_enabled" -> tracing = Boolean.parseBoolean(value);
                case "tracing_sampler" -> sampler = value;
                case "tracing_endpoint" -> endpoint = value;
                case "grace_seconds" -> grace = Long.parseLong(value);
                case "route" -> routes.add(value);
                case "config_file" -> configFile = value;
                default -> {
                    // A key a newer daemon records: nothing to show for it here.
                }
            }
        }
        List<String> urls = new ArrayList<>();
        urls.add(scheme + "://" + urlHost(host) + ":" + port);
        urls.addAll(more);
        return new RecordedSettings(urls, extraAddresses, adminEnabled, adminHost, adminPort, tokenFile, tracing, sampler,
                endpoint, grace, routes, configFile);
    }

    static String urlHost(String host) {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    String listeners() {
        return String.join(", ", listenerUrls);
    }

    String adminUrl() {
        return "http://" + urlHost(adminHost) + ":" + adminPort;
    }
}
