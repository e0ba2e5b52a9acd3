package io.kodiak.mule;

/**
 * The five Mule constructs of the 2015 experiment, each with the system property that moves its
 * listener and the port the brief's contract gives it.
 */
public enum Peer {
  PATTERN("mule.port.pattern", 9101, "pattern:http-proxy (old HTTP transport)"),
  JETTY("mule.port.jetty", 9201, "Jetty inbound, continuations on + old HTTP outbound"),
  JETTY_NO_CONTINUATIONS("mule.port.jetty.nocont", 9202, "Jetty inbound, continuations off + old HTTP outbound"),
  HTTP("mule.port.http", 9301, "new HTTP listener + requester, persistent connections"),
  HTTP_NON_PERSISTENT("mule.port.http.nonpersistent", 9302, "new HTTP listener + requester, non-persistent connections");

  private final String portProperty;
  private final int defaultPort;
  private final String description;

  Peer(String portProperty, int defaultPort, String description) {
    this.portProperty = portProperty;
    this.defaultPort = defaultPort;
    this.description = description;
  }

  /** The placeholder used for this listener's port in mule-peers.xml, and its system property. */
  public String portProperty() {
    return portProperty;
  }

  public int defaultPort() {
    return defaultPort;
  }

  public String description() {
    return description;
  }
}
