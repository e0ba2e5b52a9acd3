package io.kodiak.mule;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Properties;

/**
 * Listener ports and the stub's port, read once from system properties (and the environment for
 * the stub) with the brief's contract values as defaults. They reach the Mule configuration as
 * property placeholders, so mule-peers.xml has no port of its own.
 */
public final class PeerSettings {

  public static final String STUB_PORT_PROPERTY = "mule.stub.port";
  public static final String STUB_PORT_ENV = "MULE_STUB_PORT";
  public static final int DEFAULT_STUB_PORT = 8080;

  private final Map<Peer, Integer> listenerPorts;
  private final int stubPort;

  private PeerSettings(Map<Peer, Integer> listenerPorts, int stubPort) {
    this.listenerPorts = Collections.unmodifiableMap(listenerPorts);
    this.stubPort = stubPort;
  }

  /** A system property wins over the environment for the stub port, so tests can set it per JVM. */
  public static PeerSettings from(Properties systemProperties, Map<String, String> environment) {
    Map<Peer, Integer> ports = new EnumMap<>(Peer.class);
    for (Peer peer : Peer.values()) {
      ports.put(peer, port(peer.portProperty(), systemProperties.getProperty(peer.portProperty()), peer.defaultPort()));
    }
    String stub = systemProperties.getProperty(STUB_PORT_PROPERTY);
    String stubSource = STUB_PORT_PROPERTY;
    if (stub == null) {
      stub = environment.get(STUB_PORT_ENV);
      stubSource = STUB_PORT_ENV;
    }
    return new PeerSettings(ports, port(stubSource, stub, DEFAULT_STUB_PORT));
  }

  private static int port(String source, String value, int fallback) {
    if (value == null || value.isBlank()) {
      return fallback;
    }
    try {
      int port = Integer.parseInt(value.trim());
      if (port >= 1 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException ignored) {
      // reported below together with the out-of-range case
    }
    throw new IllegalArgumentException(source + " must be a TCP port (1-65535), got '" + value + "'");
  }

  public int listenerPort(Peer peer) {
    return listenerPorts.get(peer);
  }

  public int stubPort() {
    return stubPort;
  }

  /** Values for the ${...} placeholders of mule-peers.xml. */
  public Properties placeholders() {
    Properties placeholders = new Properties();
    listenerPorts.forEach((peer, port) -> placeholders.setProperty(peer.portProperty(), Integer.toString(port)));
    placeholders.setProperty(STUB_PORT_PROPERTY, Integer.toString(stubPort));
    return placeholders;
  }
}
