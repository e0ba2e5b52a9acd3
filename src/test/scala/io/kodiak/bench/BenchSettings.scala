package io.kodiak.bench

import scala.concurrent.duration._

/**
 * The scenario's parameters. Defaults are the 2015 experiment; every one can be overridden with a
 * `-Dbench.…` system property (the Gatling Maven plugin forwards Maven's `-D` properties to Gatling),
 * which is how bin/bench.sh selects the quick and 10x profiles without a second set of simulations.
 */
final case class BenchSettings(
    baseUrl: String,
    users: Int,
    rps: Int,
    ramp: FiniteDuration,
    hold: FiniteDuration,
    loop: FiniteDuration,
    pauseMin: FiniteDuration,
    pauseMax: FiniteDuration,
    body: String
) {
  /** What the stub appends to the body; the check proves the body travelled through the proxy. */
  def expectedFragment: String = s"$body-appended by servlet"

  /** A hung exchange must not keep the run alive past the throttle (the throttle itself ends the run). */
  def maxDuration: FiniteDuration = ramp + hold + 30.seconds

  override def toString: String =
    s"baseUrl=$baseUrl users=$users rps=$rps ramp=${ramp.toSeconds}s hold=${hold.toSeconds}s " +
      s"loop=${loop.toSeconds}s pause=${pauseMin.toMillis}-${pauseMax.toMillis}ms body=$body"
}

object BenchSettings {

  def fromSystemProperties(defaultBaseUrl: String): BenchSettings = {
    val hold = seconds("bench.hold", 60)
    val settings = BenchSettings(
      baseUrl = string("bench.baseUrl", defaultBaseUrl),
      users = int("bench.users", 200),
      rps = int("bench.rps", 600),
      ramp = seconds("bench.ramp", 20),
      hold = hold,
      // In 2015 each user looped exactly as long as the hold; keeping them tied lets --quick shorten both.
      loop = sys.props.get("bench.loop").map(_.trim.toInt.seconds).getOrElse(hold),
      pauseMin = millis("bench.pauseMin", 20),
      pauseMax = millis("bench.pauseMax", 100),
      body = string("bench.body", "test1")
    )
    validate(settings)
    settings
  }

  private def validate(s: BenchSettings): Unit = {
    require(s.users > 0, s"bench.users must be positive, got ${s.users}")
    require(s.rps > 0, s"bench.rps must be positive, got ${s.rps}")
    require(s.ramp > Duration.Zero && s.hold > Duration.Zero && s.loop > Duration.Zero,
      "bench.ramp, bench.hold and bench.loop must be positive")
    require(s.pauseMin <= s.pauseMax, s"bench.pauseMin (${s.pauseMin}) exceeds bench.pauseMax (${s.pauseMax})")
    require(s.body.nonEmpty, "bench.body must not be empty: the check looks for it in the response")
  }

  private def string(key: String, default: String): String =
    sys.props.get(key).map(_.trim).filter(_.nonEmpty).getOrElse(default)

  private def int(key: String, default: Int): Int = sys.props.get(key).map(_.trim.toInt).getOrElse(default)

  private def seconds(key: String, default: Int): FiniteDuration = int(key, default).seconds

  private def millis(key: String, default: Int): FiniteDuration = int(key, default).millis
}
