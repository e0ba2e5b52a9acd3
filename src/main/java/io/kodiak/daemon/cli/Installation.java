package io.kodiak.daemon.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where Kodiak's classes are. Two layouts: a source checkout (pom.xml beside bin/) runs
 * target/kodiak.jar and target/lib/, which bin/proxy.sh builds when missing; an unpacked release
 * archive runs lib/ as it is and is never written to.
 */
final class Installation {
    final Path home;

    Installation(Path home) {
        this.home = home.toAbsolutePath().normalize();
    }

    boolean isCheckout() {
        return Files.isRegularFile(home.resolve("pom.xml"));
    }

    private Path jar() {
        return home.resolve("target/kodiak.jar");
    }

    /**
     * The daemon's classpath. A checkout's daemon runs from a copy of the build named by its
     * content: Maven rewrites target/ in place, which would pull classes out from under a running
     * JVM whenever someone rebuilds. An installation is replaced as a whole, never rebuilt in place.
     */
    String daemonClasspath() throws IOException {
        if (!isCheckout()) {
            return home.resolve("lib") + "/*";
        }
        List<Path> jars = new ArrayList<>();
        jars.add(jar());
        try (Stream<Path> lib = Files.list(home.resolve("target/lib"))) {
            lib.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(jars::add);
        }
        Path runtime = home.resolve("target/runtime");
        Path copy = runtime.resolve("kodiak-" + digest(jars));
        if (!Files.isRegularFile(copy.resolve("kodiak.jar"))) {
            Files.createDirectories(runtime);
            Path temporary = Files.createTempDirectory(runtime, ".copy.");
            Files.createDirectory(temporary.resolve("lib"));
            for (Path jar : jars.subList(1, jars.size())) {
                Files.copy(jar, temporary.resolve("lib").resolve(jar.getFileName()));
            }
            Files.copy(jar(), temporary.resolve("kodiak.jar"));
            try {
                Files.move(temporary, copy, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException madeMeanwhile) {
                // Another start made the same copy meanwhile: either one is fine.
                deleteTree(temporary);
            }
        }
        return copy.resolve("kodiak.jar") + ":" + copy.resolve("lib") + "/*";
    }

    /**
     * An existing build is used as it is (rebuilding here could collide with a Maven run already
     * writing target/, as when tests run this command); newer sources get a one-line note.
     */
    void noteIfStale(PrintStream err) {
        if (!isCheckout() || !Files.isRegularFile(jar())) {
            return;
        }
        try (Stream<Path> sources = Stream.concat(Stream.of(home.resolve("pom.xml")), Files.walk(home.resolve("src/main")))) {
            long built = Files.getLastModifiedTime(jar()).toMillis();
            sources.filter(Files::isRegularFile).filter(p -> modified(p) > built).findFirst().ifPresent(newer ->
                    err.println("note: " + home.relativize(newer) + " is newer than target/kodiak.jar; run"
                            + " 'mvn -B -DskipTests package' to rebuild"));
        } catch (IOException | java.io.UncheckedIOException e) {
            // No note: the build is used as it is either way.
        }
    }

    private static long modified(Path file) {
        try {
            return Files.getLastModifiedTime(file).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }

    private static String digest(List<Path> files) throws IOException {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            for (Path file : files) {
                try (InputStream in = new DigestInputStream(Files.newInputStream(file), sha1)) {
                    in.transferTo(java.io.OutputStream.nullOutputStream());
                }
            }
            return HexFormat.of().formatHex(sha1.digest()).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
