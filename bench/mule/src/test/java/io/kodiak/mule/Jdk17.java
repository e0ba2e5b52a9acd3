package io.kodiak.mule;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;

/**
 * Finds a java launcher Mule 3.6.0 can run on. Mule fails on JDK 21+, so when the tests
 * themselves run on a newer JDK the child JVM must come from elsewhere: -Dmule.test.java, or a
 * JDK 17 under /usr/lib/jvm (the same places bin/lib/daemon.sh looks).
 */
final class Jdk17 {

  private Jdk17() {
  }

  static Path launcher() {
    String explicit = System.getProperty("mule.test.java");
    if (explicit != null && !explicit.isBlank()) {
      return Paths.get(explicit);
    }
    if (Runtime.version().feature() == 17) {
      Optional<String> current = ProcessHandle.current().info().command();
      if (current.isPresent()) {
        return Paths.get(current.get());
      }
    }
    return underUsrLibJvm().orElseThrow(() -> new IllegalStateException(
        "Mule 3.6.0 needs JDK 17 (it fails on 21+); none found under /usr/lib/jvm. Set -Dmule.test.java=/path/to/jdk17/bin/java"));
  }

  private static Optional<Path> underUsrLibJvm() {
    Path root = Paths.get("/usr/lib/jvm");
    if (!Files.isDirectory(root)) {
      return Optional.empty();
    }
    try (DirectoryStream<Path> jdks = Files.newDirectoryStream(root, "*-17*")) {
      for (Path jdk : jdks) {
        Path java = jdk.resolve("bin/java");
        if (Files.isExecutable(java)) {
          return Optional.of(java);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list " + root, e);
    }
    return Optional.empty();
  }
}
