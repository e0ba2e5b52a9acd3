package io.kodiak.bench

// One simulation per target of bin/bench.sh; the ports are the contract in the brief (§5).

/** The stub itself: the ceiling every proxy is measured against. */
class StubDirectSimulation
    extends OriginalScenarioSimulation("http://127.0.0.1:8080/ProxiedServiceStub/ServiceStubServlet")

class KodiakSimulation extends OriginalScenarioSimulation("http://127.0.0.1:9401/")

/** Mule 3.6 `pattern:http-proxy` over the old blocking HTTP transport. */
class MulePatternSimulation extends OriginalScenarioSimulation("http://127.0.0.1:9101/")

/** Mule 3.6 Jetty inbound endpoint with continuations. */
class MuleJettySimulation extends OriginalScenarioSimulation("http://127.0.0.1:9201/")

/** Mule 3.6 Jetty inbound endpoint without continuations. */
class MuleJettyNoContinuationsSimulation extends OriginalScenarioSimulation("http://127.0.0.1:9202/")

/** Mule 3.6 new HTTP listener + requester, persistent connections on both sides. */
class MuleHttpPersistentSimulation extends OriginalScenarioSimulation("http://127.0.0.1:9301/")

/** Mule 3.6 new HTTP listener + requester, persistent connections off on both sides. */
class MuleHttpNonPersistentSimulation extends OriginalScenarioSimulation("http://127.0.0.1:9302/")

class NginxSimulation extends OriginalScenarioSimulation("http://127.0.0.1:9501/")

class HaproxySimulation extends OriginalScenarioSimulation("http://127.0.0.1:9601/")
