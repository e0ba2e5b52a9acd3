package io.kodiak.mule;

import java.util.StringJoiner;
import java.util.concurrent.CountDownLatch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the Mule 3.6.0 peers from a configuration file (default: mule-peers.xml on the class
 * path), prints {@value #READY} once all listeners are up, and stops Mule cleanly on SIGTERM.
 *
 * <p>Usage: {@code java -cp ... io.kodiak.mule.MulePeers [config.xml]}
 */
public final class MulePeers {

  /** First words of the line scripts and tests wait for. */
  public static final String READY = "Mule peers ready";
  public static final String DEFAULT_CONFIG = "mule-peers.xml";

  private static final Logger LOG = LoggerFactory.getLogger(MulePeers.class);

  private MulePeers() {
  }

  public static void main(String[] args) throws InterruptedException {
    String config = args.length > 0 ? args[0] : DEFAULT_CONFIG;
    EmbeddedMule mule;
    PeerSettings settings;
    try {
      settings = PeerSettings.from(System.getProperties(), System.getenv());
      mule = EmbeddedMule.start(config, settings.placeholders());
    } catch (Exception e) {
      LOG.error("Mule peers failed to start from {}", config, e);
      // Mule leaves non-daemon threads behind after a failed start; exit so the script sees it.
      System.exit(1);
      return;
    }

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(mule, stopped), "mule-peers-shutdown"));
    LOG.info("{}: {}; stub 127.0.0.1:{}; working directory {}", READY, describe(settings), settings.stubPort(),
        mule.workingDirectory());
    // Keep main alive so the JVM's lifetime is tied to the shutdown hook, not to which Mule
    // threads happen to be daemons.
    stopped.await();
  }

  private static void stop(EmbeddedMule mule, CountDownLatch stopped) {
    LOG.info("Stopping Mule peers");
    try {
      mule.close();
      LOG.info("Mule peers stopped");
    } catch (Exception e) {
      LOG.warn("Mule did not stop cleanly", e);
    } finally {
      stopped.countDown();
    }
  }

  private static String describe(PeerSettings settings) {
    StringJoiner joiner = new StringJoiner(", ");
    for (Peer peer : Peer.values()) {
      joiner.add(peer.name().toLowerCase().replace('_', '-') + " 127.0.0.1:" + settings.listenerPort(peer));
    }
    return joiner.toString();
  }
}
