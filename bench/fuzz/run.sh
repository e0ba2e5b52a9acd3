#!/usr/bin/env bash
# Fuzzes Kodiak's request and response parsers with Jazzer (coverage-guided), each for --minutes N
# (default 5), one after the other, in rounds of one minute (the length ParserFuzzTest's @FuzzTest
# sets; Jazzer takes it from nowhere else). Each round goes on from the corpus the last one left.
# Findings are written by Jazzer next to the saved inputs in
# src/test/resources/io/kodiak/http/ParserFuzzTestInputs/<target>/ and then run as regression
# inputs by bin/test.sh. The generated corpus stays in .cifuzz-corpus/ (not committed).
# Writes target/bench/fuzz-<timestamp>/: fuzz.tsv (a row per fuzz target: executions, time, coverage,
# corpus, findings, summed over its rounds), and from it results.json, report.md and report.html
# (bench/report, laid out by bench/fuzz/report.json); each round's Jazzer output in logs/.
# Exits non-zero when a round did not end well (a finding, or Maven failing): the target's remaining
# rounds are skipped, and the report counts the round as failed.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
# shellcheck source=../../bin/lib/daemon.sh
. "$root/bin/lib/daemon.sh"
# shellcheck source=../lib/report.sh
. "$root/bench/lib/report.sh"
# shellcheck source=../lib/versions.sh
. "$root/bench/lib/versions.sh"
args="$*"
minutes=5
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) minutes=${2:-}; shift 2 ;;
    *) echo "usage: bin/bench.sh fuzz [--minutes N]" >&2; exit 2 ;;
  esac
done
case $minutes in ''|*[!0-9]*) echo "--minutes: a whole number of minutes expected, got '$minutes'" >&2; exit 2 ;; esac
cd "$root"

out=$root/target/bench/fuzz-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$out/logs"
inputs=$root/src/test/resources/io/kodiak/http/ParserFuzzTestInputs
corpus=$root/.cifuzz-corpus/io.kodiak.http.ParserFuzzTest
files_in() { find "$1" -maxdepth 1 -type f -name "${2:-*}" 2>/dev/null | sort; }

# What one round's Jazzer (libFuzzer) output says: executions, seconds fuzzed, coverage (edges) and
# features of its last status line. A round cut short by a finding prints no "Done" line: its
# executions are then those of its last status line, and its seconds unknown (empty).
round_stats() {   # LOG -> executions, seconds, coverage, features: tab-separated, any of the last three empty
  awk '/^#[0-9]+\t/ { n = substr($1, 2); for (i = 2; i < NF; i++) { if ($i == "cov:") cov = $(i + 1); if ($i == "ft:") ft = $(i + 1) } }
       /^Done [0-9]+ runs in [0-9]+ second/ { n = $2; s = $5 }
       END { OFS = "\t"; print n + 0, s, cov, ft }' "$1"
}

tsv=$out/fuzz.tsv
printf 'target\tscenario\trequests\tok\tko\tp50_ms\tp95_ms\tp99_ms\tmean_ms\trounds\tfailed_rounds\tfuzz_seconds\tcoverage\tfeatures\tcorpus_entries\tcorpus_added\tfinding\n' >"$tsv"
bench_begin "$out"
status=0
for target in requestHeadsAndBodies responseHeadsAndBodies; do
  crashes_before=$(files_in "$inputs/$target" 'crash-*')
  corpus_before=$(files_in "$corpus/$target" | wc -l)
  executions=0 seconds=0 rounds=0 failed=0 coverage= features=
  for round in $(seq 1 "$minutes"); do
    echo "[fuzz $(date -u +%H:%M:%S)] ParserFuzzTest#$target, minute $round of $minutes"
    log=$out/logs/$target-$round.log
    rounds=$round
    # JAZZER_FUZZ turns the replay of saved inputs into fuzzing. The suite's 60 s test timeout
    # (junit-platform.properties) would cut a round short; -DskipTlsSuite keeps the pom's second
    # surefire run (the forwarding suite over TLS, under -Xmx64m) from fuzzing the picked test again,
    # where Jazzer's agent runs out of heap.
    round_status=0
    JAZZER_FUZZ=1 mvn -q -B test -Dtest="ParserFuzzTest#$target" -Dsurefire.failIfNoSpecifiedTests=false \
      -DskipTlsSuite -Djunit.jupiter.execution.timeout.mode=disabled >"$log" 2>&1 || round_status=$?
    # Tabs keep an empty field empty (a round cut short by a finding has no seconds); spaces would shift the rest.
    IFS=$'\t' read -r n s cov ft <<<"$(round_stats "$log")"
    executions=$((executions + n))
    if [ -n "$s" ] && [ -n "$seconds" ]; then seconds=$((seconds + s)); else seconds=; fi
    coverage=${cov:-$coverage} features=${ft:-$features}
    bench_sample_load
    if [ "$round_status" -ne 0 ]; then status=$round_status failed=1; echo "finding: see $log" >&2; break; fi
  done
  # A finding is a crash-* input Jazzer saved with the regression inputs during this run.
  found=$(comm -13 <(echo "$crashes_before") <(files_in "$inputs/$target" 'crash-*') | xargs -r -n 1 basename | paste -sd, -)
  findings=$([ -n "$found" ] && tr ',' '\n' <<<"$found" | wc -l || echo 0)
  corpus_after=$(files_in "$corpus/$target" | wc -l)
  printf 'kodiak\t%s\t%s\t%s\t%s\t\t\t\t\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$executions" $((executions - findings)) "$findings" \
    "$rounds" "$failed" "$seconds" "$coverage" "$features" "$corpus_after" $((corpus_after - corpus_before)) "$found" >>"$tsv"
done

java=$(daemon_java 17 || command -v java)
jazzer=$(sed -n '/<artifactId>jazzer-junit<\/artifactId>/{n;s/.*<version>\(.*\)<\/version>.*/\1/p}' "$root/pom.xml")
mapfile -t versions < <(version_args java="$java")
bench_report fuzz "$out" "bin/bench.sh fuzz $args" --rows "$tsv" "${versions[@]}" --version jazzer="jazzer-junit $jazzer" \
  --param minutes_per_target="$minutes"
echo "[fuzz] report: $out/report.md"
exit $status
