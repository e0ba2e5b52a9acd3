#!/usr/bin/env bash
# Runs every test of the project; .ci/run calls exactly this. Each part has its own build:
#   1. Kodiak (root pom): unit and integration tests on ephemeral loopback ports
#   2. the stub (stub/pom.xml)
#   3. the real Mule 3.6.0 peers, smoke-tested against a small backend (bench/mule/pom.xml)
#   4. the throughput bench's self-test: its report generator and the argument handling of its
#      scripts, with no load
#   5. the bench report module (bench/report): its tests, among them every bench's report spec
#      (bench/*/report.json) turned into results from a fixture, validated and rendered
#   6. the bundled experiment: the report generator's self-test, then a --quick Gatling run of the
#      stub and Kodiak that fails when any request fails
# Maven fetches everything it needs from Maven Central on a fresh machine.
set -euo pipefail
root=$(cd -P "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
cd "$root"

step() { printf '\n=== %s ===\n' "$*"; }

step "Kodiak: mvn -B verify"
mvn -B verify

step "stub: mvn -B -f stub/pom.xml verify"
mvn -B -f stub/pom.xml verify

step "Mule 3.6.0 peers: mvn -B -f bench/mule/pom.xml verify"
mvn -B -f bench/mule/pom.xml verify

step "throughput bench: bench/throughput/selftest.sh"
bench/throughput/selftest.sh

step "bench report module: mvn -B -f bench/report/pom.xml verify"
# report_jar fetches the chart library with npm first when bench/report/node_modules lacks it.
(. bench/lib/report.sh && report_jar >/dev/null)
mvn -B -f bench/report/pom.xml verify

step "bench report generator: bench/gatling/selftest.sh"
bench/gatling/selftest.sh

step "experiment smoke: bin/bench.sh gatling --quick --targets stub,kodiak --fail-on-ko"
bin/bench.sh gatling --quick --targets stub,kodiak --fail-on-ko

step "all tests passed"
