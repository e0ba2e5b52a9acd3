package io.kodiak.mule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;

class PeerSettingsTest {

  @Test
  void defaultsAreTheBriefsContractPorts() {
    PeerSettings settings = PeerSettings.from(new Properties(), Map.of());

    assertEquals(9101, settings.listenerPort(Peer.PATTERN));
    assertEquals(9201, settings.listenerPort(Peer.JETTY));
    assertEquals(9202, settings.listenerPort(Peer.JETTY_NO_CONTINUATIONS));
    assertEquals(9301, settings.listenerPort(Peer.HTTP));
    assertEquals(9302, settings.listenerPort(Peer.HTTP_NON_PERSISTENT));
    assertEquals(8080, settings.stubPort());
  }

  @Test
  void stubPortComesFromTheEnvironmentUnlessASystemPropertyOverridesIt() {
    Properties system = new Properties();
    assertEquals(18080, PeerSettings.from(system, Map.of("MULE_STUB_PORT", "18080")).stubPort());

    system.setProperty("mule.stub.port", "28080");
    assertEquals(28080, PeerSettings.from(system, Map.of("MULE_STUB_PORT", "18080")).stubPort());
  }

  @Test
  void placeholdersCarryEveryPortUnderItsPropertyName() {
    Properties system = new Properties();
    system.setProperty("mule.port.jetty.nocont", "40202");

    Properties placeholders = PeerSettings.from(system, Map.of()).placeholders();

    assertEquals("40202", placeholders.getProperty("mule.port.jetty.nocont"));
    assertEquals("9302", placeholders.getProperty("mule.port.http.nonpersistent"));
    assertEquals("8080", placeholders.getProperty("mule.stub.port"));
    assertEquals(Peer.values().length + 1, placeholders.size());
  }

  @Test
  void rejectsSomethingThatIsNotAPort() {
    Properties system = new Properties();
    system.setProperty("mule.port.http", "70000");

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PeerSettings.from(system, Map.of()));
    assertTrue(e.getMessage().contains("mule.port.http"), e.getMessage());

    assertThrows(IllegalArgumentException.class, () -> PeerSettings.from(new Properties(), Map.of("MULE_STUB_PORT", "eighty")));
  }
}
