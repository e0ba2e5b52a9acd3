package io.kodiak.daemon;

import io.kodiak.support.RecordingUpstream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The release archive (target/kodiak-VERSION.tar.gz, made by mvn package): what it holds, and that
 * an unpacked copy starts, forwards, reports and stops with a JDK alone, Maven out of reach.
 */
class DistributionIT {
    private static final Path TARGET = ProxyScript.REPO.resolve("target");

    @TempDir
    Path dir;

    /** The archive this build made: the newest in target/ (an older version's may be left there). */
    private static Path archive() throws IOException {
        try (Stream<Path> files = Files.list(TARGET)) {
            return files.filter(f -> f.getFileName().toString().matches("kodiak-.+\\.tar\\.gz"))
                    .max(java.util.Comparator.comparing(f -> f.toFile().lastModified()))
                    .orElseThrow(() -> new AssertionError("no release archive in " + TARGET + " (mvn package makes it)"));
        }
    }

    private static String top(Path archive) {
        String name = archive.getFileName().toString();
        return name.substring(0, name.length() - ".tar.gz".length());
    }

    /** Runs {@code command} to completion (at most 60 s) and returns its output; it must exit 0. */
    private static String run(Path cwd, String... command) throws IOException, InterruptedException {
        Path output = Files.createTempFile("distribution-it", ".out");
        try {
            Process process = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish within 60 s");
            }
            String text = Files.readString(output);
            assertEquals(0, process.exitValue(), String.join(" ", command) + ":\n" + text);
            return text;
        } finally {
            Files.deleteIfExists(output);
        }
    }

    @Test
    void theArchiveHoldsOneTopDirectoryWithEverythingToRunAndNothingToBuild() throws Exception {
        Path archive = archive();
        String top = top(archive);
        String version = top.substring("kodiak-".length());
        List<String> names = run(dir, "tar", "-tzf", archive.toString()).lines().toList();
        List<String> entries = run(dir, "tar", "-tzvf", archive.toString()).lines().toList();
        for (String name : names) {
            assertTrue(name.startsWith(top + "/"), "outside " + top + "/: " + name);
            assertFalse(name.contains("/src/") || name.endsWith("pom.xml") || name.contains("/target/"), name);
        }
        for (String expected : List.of("bin/proxy.sh", "bin/lib/daemon.sh", "conf/proxy.conf", "conf/logback.xml",
                "lib/kodiak-" + version + ".jar", "lib/grizzly-framework-2.3.35.jar", "lib/config-", "docs/daemon.md",
                "docs/operations.md", "docs/configuration.md", "docs/getting-started.md",
                "dist/kodiak.service", "README.md", "THIRD-PARTY.txt", "licenses/")) {
            assertTrue(names.stream().anyMatch(n -> n.startsWith(top + "/" + expected)), expected + " in " + names);
        }
        String proxyScript = entries.stream().filter(e -> e.endsWith(top + "/bin/proxy.sh")).findFirst().orElseThrow();
        assertTrue(proxyScript.startsWith("-rwxr-xr-x"), proxyScript);
        String thirdParty = run(dir, "tar", "-xzOf", archive.toString(), top + "/THIRD-PARTY.txt");
        assertTrue(thirdParty.contains("grizzly-framework") && thirdParty.contains("logback-classic"), thirdParty);
    }

    @Test
    void anUnpackedCopyRunsWithAJdkAloneAndNeverCallsMaven() throws Exception {
        Path archive = archive();
        run(dir, "tar", "-xzf", archive.toString());
        Path home = dir.resolve(top(archive));
        // Maven first on the PATH, recording any call: an installation must never build.
        Path fakeBin = Files.createDirectories(dir.resolve("fake-bin"));
        Path called = dir.resolve("mvn-was-called");
        Path mvn = fakeBin.resolve("mvn");
        Files.writeString(mvn, "#!/bin/sh\ntouch '" + called + "'\nexit 1\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        String path = fakeBin + ":/usr/local/bin:/usr/bin:/bin";

        String version = run(dir, "env", "PATH=" + path, home.resolve("bin/proxy.sh").toString(), "version");
        assertEquals("Kodiak " + top(archive).substring("kodiak-".length()), version.strip());

        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO)) {
            ProxyScript proxy = new ProxyScript(Files.createDirectories(dir.resolve("instance")), upstream.url("/"), "")
                    .through(home.resolve("bin/proxy.sh"), dir).path(path);
            try {
                ProxyScript.Result started = proxy.run("start");
                assertEquals(0, started.exitCode(), started.output());
                try (io.kodiak.support.RawHttp raw = new io.kodiak.support.RawHttp(proxy.port)) {
                    raw.send("POST /installed HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
                    assertEquals("hello", raw.read().bodyText());
                }
                assertEquals("/installed", upstream.received().get(0).target());
                assertEquals(0, proxy.run("status").exitCode());
                ProxyScript.Result stopped = proxy.run("stop");
                assertEquals(0, stopped.exitCode(), stopped.output());
            } finally {
                proxy.cleanUp();
            }
        }
        assertFalse(Files.exists(called), "bin/proxy.sh called Maven in an installation");
        try (Stream<Path> written = Files.list(home)) {
            assertEquals(List.of("README.md", "THIRD-PARTY.txt", "bin", "conf", "dist", "docs", "lib", "licenses"),
                    written.map(p -> p.getFileName().toString()).sorted().toList(),
                    "the installation holds what was unpacked and nothing more (no target/, no logs/)");
        }
        assertTrue(Files.getPosixFilePermissions(home.resolve("bin/proxy.sh")).contains(PosixFilePermission.OWNER_EXECUTE));
    }

    @Test
    void theSystemdUnitVerifies() throws Exception {
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        assumeTrue(Files.isExecutable(analyze), "systemd-analyze is not installed here");
        Path archive = archive();
        run(dir, "tar", "-xzf", archive.toString());
        Path home = dir.resolve(top(archive));
        // The unit as shipped, its /opt/kodiak paths pointed at the unpacked copy (verify checks that ExecStart exists).
        String unit = Files.readString(home.resolve("dist/kodiak.service")).replace("/opt/kodiak", home.toString());
        assertEquals(List.of(), verify(analyze, "kodiak.service", unit));
        // The check itself can fail: a unit with a mistake in it is reported.
        List<String> control = verify(analyze, "kodiak-control.service", unit.replace("KillMode=mixed", "KillMode=bogus"));
        assertTrue(control.stream().anyMatch(line -> line.contains("KillMode") || line.contains("kill mode")), control.toString());
    }

    /** systemd-analyze verify's lines about {@code name} (it also reports on host units a container cannot load). */
    private List<String> verify(Path analyze, String name, String unit) throws IOException, InterruptedException {
        Path file = dir.resolve(name);
        Files.writeString(file, unit);
        Path output = dir.resolve(name + ".out");
        Process process = new ProcessBuilder(analyze.toString(), "verify", "--man=no", file.toString())
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "systemd-analyze verify did not finish");
        return Files.readAllLines(output).stream().filter(line -> line.contains(name)).toList();
    }
}
