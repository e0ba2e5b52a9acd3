#!/usr/bin/env bash
# Fuzzes Kodiak's request and response parsers with Jazzer (coverage-guided), each for --minutes N
# (default 5), one after the other, in rounds of one minute (the length ParserFuzzTest's @FuzzTest
# sets; Jazzer takes it from nowhere else). Each round goes on from the corpus the last one left. Findings are written by Jazzer next to the saved inputs in
# src/test/resources/io/kodiak/http/ParserFuzzTestInputs/<target>/ and then run as regression
# inputs by bin/test.sh. The generated corpus stays in .cifuzz-corpus/ (not committed).
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
minutes=5
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    *) echo "usage: bin/bench.sh fuzz [--minutes N]" >&2; exit 2 ;;
  esac
done
case $minutes in ''|*[!0-9]*) echo "--minutes: a whole number of minutes expected, got '$minutes'" >&2; exit 2 ;; esac
cd "$root"
status=0
for target in requestHeadsAndBodies responseHeadsAndBodies; do
  for round in $(seq 1 "$minutes"); do
    echo "[fuzz $(date -u +%H:%M:%S)] ParserFuzzTest#$target, minute $round of $minutes"
    # JAZZER_FUZZ turns the replay of saved inputs into fuzzing.
    # The suite's 60 s test timeout (junit-platform.properties) would cut a round short.
    JAZZER_FUZZ=1 mvn -q -B test -Dtest="ParserFuzzTest#$target" -Dsurefire.failIfNoSpecifiedTests=false \
      -Djunit.jupiter.execution.timeout.mode=disabled \
      > "$root/target/fuzz-$target.log" 2>&1 || { status=$?; echo "finding: see target/fuzz-$target.log" >&2; break; }
  done
done
exit $status
