package io.kodiak.bench

import io.gatling.core.Predef._
import io.gatling.http.Predef._

/**
 * The 2015 experiment's scenario, identical for every target; subclasses only name the base URL.
 *
 * All users start at once and loop POST `test1` → pause 20–100 ms; the whole run is throttled to reach
 * 600 req/s in 20 s, then hold 60 s. With a 500 ms service the users, not the throttle, bound the rate
 * (~357 req/s), so a perfect proxy matches the stub-direct run.
 */
abstract class OriginalScenarioSimulation(defaultBaseUrl: String) extends Simulation {

  private val settings = BenchSettings.fromSystemProperties(defaultBaseUrl)
  println(s"[bench] ${getClass.getSimpleName}: $settings")

  // No internet here: the warm-up request would go to gatling.io and fail.
  private val protocol = http
    .baseUrl(settings.baseUrl)
    .disableWarmUp
    .contentTypeHeader("text/plain")
    .acceptHeader("text/plain")
    .userAgentHeader("Gatling")

  // An empty relative path makes Gatling request the base URL itself, so the stub's full servlet URL
  // and a proxy's "/" are both expressed as the base URL alone.
  private val postBody = http("POST body")
    .post("")
    .body(StringBody(settings.body))
    .check(status.is(200), substring(settings.expectedFragment))

  private val loop = scenario("original")
    .during(settings.loop) {
      exec(postBody).pause(settings.pauseMin, settings.pauseMax)
    }

  setUp(loop.inject(atOnceUsers(settings.users)))
    .protocols(protocol)
    .throttle(reachRps(settings.rps).in(settings.ramp), holdFor(settings.hold))
    .maxDuration(settings.maxDuration)
    // Without an assertion Gatling exits 0 even when every request failed.
    .assertions(global.failedRequests.count.is(0L))
}
