#!/usr/bin/env bash
# Runs every test of the project; .ci/run calls exactly this. Each part has its own build:
#   1. Kodiak (root pom): unit and integration tests on ephemeral loopback ports, with JaCoCo
#      coverage (target/site/jacoco/) and a summary of it (bin/lib/coverage.sh; no thresholds)
#   2. the stub (stub/pom.xml)
#   3. the real Mule 3.6.0 peers, smoke-tested against a small backend (bench/mule/pom.xml)
#   4. the bench report module (bench/report): its unit tests, among them every bench's report spec
#      (bench/*/report.json) turned into results from a fixture, validated and rendered; then the jar
#      on made-up runs (results, schema, report.md, report.html drawn in headless Chromium, --compare)
#   5. the throughput bench's self-test: its report (bench/report) on made-up runs, drawn in headless
#      Chromium, and the argument handling of its scripts, with no load
#   6. the bundled experiment: its report path's self-test (bench/report on Gatling fixtures), then
#      a --quick Gatling run of the stub and Kodiak that fails when any request fails
#   7. the soak, 2 minutes (bin/bench.sh soak --minutes 2 --check): every kind of traffic, reloads and a
#      server killed and restarted; fails on any failed request the kill does not explain, or when
#      Kodiak exits or stops answering. The hour-long run and its slopes: docs/soak.md
# Maven fetches everything it needs from Maven Central on a fresh machine.
set -euo pipefail
root=$(cd -P "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
cd "$root"

step() { printf '\n=== %s ===\n' "$*"; }

step "Kodiak: mvn -B verify"
# Real peers some tests drive (HAProxy sending the PROXY protocol, curl speaking h2c): installed when
# missing, and required (-Dkodiak.test.peers=required), so that CI never skips them.
# shellcheck source=lib/packages.sh
. "$root/bin/lib/packages.sh"
ensure_packages "bin/test.sh" haproxy curl
# Last run's coverage data goes first: the agents append to target/jacoco*.exec, and a stale report
# must not stand in for one this run failed to write.
rm -rf target/jacoco.exec target/jacoco-it.exec target/jacoco-merged.exec target/site/jacoco
mvn -B verify -Dkodiak.test.peers=required

step "Kodiak: test coverage"
bash bin/lib/coverage.sh target/site/jacoco/jacoco.xml

step "stub: mvn -B -f stub/pom.xml verify"
mvn -B -f stub/pom.xml verify

step "Mule 3.6.0 peers: mvn -B -f bench/mule/pom.xml verify"
mvn -B -f bench/mule/pom.xml verify

step "bench report module: bench/report/selftest.sh"
bench/report/selftest.sh

step "throughput bench: bench/throughput/selftest.sh"
bench/throughput/selftest.sh

step "gatling bench report: bench/gatling/selftest.sh"
bench/gatling/selftest.sh

step "experiment smoke: bin/bench.sh gatling --quick --targets stub,kodiak --fail-on-ko"
bin/bench.sh gatling --quick --targets stub,kodiak --fail-on-ko

step "soak: bin/bench.sh soak --minutes 2 --check"
bin/bench.sh soak --minutes 2 --check

step "all tests passed"
