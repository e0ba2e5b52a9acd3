package io.kodiak.admin;

import com.typesafe.config.ConfigFactory;
import io.kodiak.config.ConfigLoader;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SettingsReportTest {

    @Test
    void printsWhatTheScriptReadsAsKeyValueLines() {
        var config = ConfigLoader.fromConfig(ConfigFactory.parseString("""
                proxy.listener { host = "::1", port = 9402 }
                proxy.admin { enabled = false, port = 9482 }
                proxy.shutdown.grace-period = 1500ms
                proxy.routes = [
                  { prefix = "/", upstream = "http://127.0.0.1:8080/x" },
                  { prefix = "/b", upstream = "http://127.0.0.1:8081", preserve-host = true }
                ]
                """));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SettingsReport.print(config, new PrintStream(bytes, true, StandardCharsets.UTF_8));

        assertEquals(List.of(
                "listener_host=::1",
                "listener_port=9402",
                "listener_scheme=http",
                "admin_enabled=false",
                "admin_host=127.0.0.1",
                "admin_port=9482",
                "tracing_enabled=false",
                "grace_seconds=2",
                "route=/ -> http://127.0.0.1:8080/x",
                "route=/b -> http://127.0.0.1:8081 (preserve-host)"
        ), bytes.toString(StandardCharsets.UTF_8).lines().toList());
    }

    @Test
    void tracingAsItRunsWithItsSamplerAndEndpoint() {
        var config = ConfigLoader.fromConfig(ConfigFactory.parseString(
                "proxy.tracing { enabled = true, sampler = 0.25, otlp.endpoint = \"http://collector:4318/v1/traces\" }"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SettingsReport.print(config, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(List.of("tracing_enabled=true", "tracing_sampler=0.25", "tracing_endpoint=http://collector:4318/v1/traces"),
                lines.stream().filter(line -> line.startsWith("tracing_")).toList());
    }
}
