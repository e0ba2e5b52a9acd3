package io.kodiak.mule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Starts the real Mule 3.6.0 peers in a child JVM against a stub-like backend and sends each of
 * the five listeners the Gatling scenario's request.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MulePeersSmokeTest {

  private static final long START_SECONDS = 120;

  private StubLikeBackend backend;
  private MulePeersProcess mule;
  private final HttpClient client = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .build();

  @BeforeAll
  void startBackendAndMule() throws Exception {
    backend = StubLikeBackend.start();
    Path workDir = Paths.get("target", "mule-smoke").toAbsolutePath();
    mule = MulePeersProcess.start(backend.port(), workDir);
    mule.awaitReady(START_SECONDS);
  }

  @AfterAll
  void stopAll() throws Exception {
    if (mule != null) {
      mule.close();
    }
    if (backend != null) {
      backend.close();
    }
  }

  @Order(1)
  @ParameterizedTest
  @EnumSource(Peer.class)
  void peerProxiesThePostToTheStub(Peer peer) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + mule.port(peer) + "/"))
        .timeout(Duration.ofSeconds(15))
        .header("Content-Type", "text/plain")
        .header("Accept", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString("test1"))
        .build();

    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());

    assertEquals(200, response.statusCode(), () -> peer + " answered " + response.statusCode() + ": " + response.body());
    assertTrue(response.body().contains("test1-appended by servlet"), () -> peer + " answered: " + response.body());
  }

  @Order(2)
  @Test
  void stopsCleanlyOnSigterm() throws Exception {
    int exit = mule.terminate(60);

    String log = Files.readString(mule.log());
    assertTrue(log.contains("Mule peers stopped"), "no clean-stop line in " + mule.log());
    // A JVM ended by SIGTERM through its shutdown hooks exits with 128 + 15.
    assertEquals(143, exit, "exit code of the Mule JVM after SIGTERM");
  }

  @Test
  @Order(0)
  void keepsMulesWorkingFilesInItsWorkingDirectory() {
    assertTrue(Files.isDirectory(Paths.get("target", "mule-smoke", ".mule")), "Mule's .mule/ is not under target/mule-smoke");
  }
}
