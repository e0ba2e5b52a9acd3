package io.kodiak.mule;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The harness's real main class in a child JVM (on JDK 17, with this JVM's class path) on free
 * loopback ports. Its output is copied to a log file; {@link #awaitReady} completes when the
 * "ready" line appears and fails at once if the JVM dies first.
 */
final class MulePeersProcess implements AutoCloseable {

  private final Process process;
  private final Map<Peer, Integer> ports;
  private final Path log;
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final CompletableFuture<Void> drained = new CompletableFuture<>();

  private MulePeersProcess(Process process, Map<Peer, Integer> ports, Path log) {
    this.process = process;
    this.ports = ports;
    this.log = log;
  }

  static MulePeersProcess start(int stubPort, Path workDir) throws IOException {
    Files.createDirectories(workDir);
    Map<Peer, Integer> ports = new EnumMap<>(Peer.class);
    for (Peer peer : Peer.values()) {
      ports.put(peer, freePort());
    }
    List<String> command = new ArrayList<>();
    command.add(Jdk17.launcher().toString());
    command.add("-Dmule.workingDirectory=" + workDir.resolve(".mule"));
    command.add("-D" + PeerSettings.STUB_PORT_PROPERTY + "=" + stubPort);
    ports.forEach((peer, port) -> command.add("-D" + peer.portProperty() + "=" + port));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(MulePeers.class.getName());

    Process process = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start();
    MulePeersProcess peers = new MulePeersProcess(process, ports, workDir.resolve("mule.log"));
    peers.copyOutput();
    return peers;
  }

  // Closing the probe socket before Mule binds leaves a small race with other processes; the
  // ephemeral range is large enough that it has not mattered.
  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      return socket.getLocalPort();
    }
  }

  private void copyOutput() {
    Thread copier = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
           Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
        String line;
        while ((line = in.readLine()) != null) {
          out.write(line);
          out.write('\n');
          out.flush();
          if (line.contains(MulePeers.READY)) {
            ready.complete(null);
          }
        }
      } catch (IOException e) {
        ready.completeExceptionally(e);
      }
      ready.completeExceptionally(new IllegalStateException("Mule peers exited before they were ready; see " + log));
      drained.complete(null);
    }, "mule-peers-output");
    copier.setDaemon(true);
    copier.start();
  }

  void awaitReady(long seconds) throws Exception {
    ready.get(seconds, TimeUnit.SECONDS);
  }

  int port(Peer peer) {
    return ports.get(peer);
  }

  Path log() {
    return log;
  }

  /**
   * Sends SIGTERM (what mule.sh stop does) and returns the exit code once the JVM has exited and
   * its last output is in the log, or -1 if it outlived the wait.
   */
  int terminate(long seconds) throws Exception {
    // Through the handle, not Process.destroy(): that also closes our end of the child's
    // output, which would lose everything Mule logs while it stops.
    process.toHandle().destroy();
    if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
      return -1;
    }
    drained.get(10, TimeUnit.SECONDS);
    return process.exitValue();
  }

  @Override
  public void close() throws Exception {
    if (process.isAlive() && terminate(30) == -1) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
