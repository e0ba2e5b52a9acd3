package io.kodiak.stub.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One stub instance: its base directory (STUB_BASE) with stub.pid and logs/stub.log, and whether
 * the process the pid file names is ours: it must carry this base's marker as one whole
 * argument, so a stale pid file that now names another process is never trusted nor signalled.
 */
final class StubInstance {
    final Path base;
    final Path pidFile;
    final Path log;
    final String marker;

    StubInstance(Path base) {
        this.base = base.toAbsolutePath().normalize();
        this.pidFile = this.base.resolve("stub.pid");
        this.log = this.base.resolve("logs/stub.log");
        this.marker = "-Dkodiak.daemon=stub:" + this.base;
    }

    Optional<Long> pid() {
        try {
            String digits = Files.readString(pidFile, StandardCharsets.US_ASCII).replaceAll("[^0-9]", "");
            if (digits.isEmpty() || digits.length() > 18) {
                return Optional.empty();
            }
            long pid = Long.parseLong(digits);
            return argumentsOf(pid).contains("\0" + marker + "\0") ? Optional.of(pid) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The process's arguments, each between NULs. */
    private static String argumentsOf(long pid) throws IOException {
        return "\0" + new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8);
    }

    /** A setting the running stub was started with, from its own environment. */
    static String setting(long pid, String name, String fallback) {
        try {
            String environment = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ")), StandardCharsets.UTF_8);
            for (String entry : environment.split("\0")) {
                if (entry.startsWith(name + "=") && entry.length() > name.length() + 1) {
                    return entry.substring(name.length() + 1);
                }
            }
        } catch (IOException e) {
            // Not readable (another user's process): the default is the best guess.
        }
        return fallback;
    }

    /** "pid P, URL, mode M, delay D ms", from the running stub's own settings. */
    static String describe(long pid) {
        String host = setting(pid, "STUB_HOST", "127.0.0.1");
        return "pid " + pid + ", http://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":"
                + setting(pid, "STUB_PORT", "8080") + "/ProxiedServiceStub/ServiceStubServlet, mode "
                + setting(pid, "STUB_MODE", "async") + ", delay " + setting(pid, "STUB_DELAY_MS", "500") + " ms";
    }
}
