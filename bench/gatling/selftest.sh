#!/usr/bin/env bash
# Checks the report generator (including a render of its page in headless Chromium, installed when
# missing) and bench.sh's argument handling without running any load (~15 s):
#   bench/gatling/selftest.sh
# Fixtures in testdata/ are real Gatling 3.12.0 outputs: an all-OK run and a run whose every request
# failed (connection refused), trimmed to the files the report reads.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../bin/lib/daemon.sh
. "$root/bin/lib/daemon.sh"
java=$(daemon_java 17) || { echo "selftest: no JDK 17" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

check() {
  local what=$1
  shift
  if "$@" >/dev/null 2>&1; then
    echo "ok   $what"
  else
    echo "FAIL $what"
    failures=$((failures + 1))
  fi
}
row_of() { grep "\"target\": \"$1\"" "$work/results.json"; }
report() { "$java" "$here/Report.java" "$@"; }

cp -r "$here/testdata/ok" "$work/ok"
cp -r "$here/testdata/ko" "$work/ko"
printf 'nginx\tnginx (9501)\t0\tok\nkodiak\tKodiak (9401)\t1\tko\nmule-http\tMule new HTTP (9301)\t125\tmissing\tmule is not available yet\n' >"$work/runs.tsv"
report collect --manifest "$work/runs.tsv" --out "$work/results.json" --param scenario=quick --param users=50

check "results.json holds one row per manifest line" test "$(grep -c '"target"' "$work/results.json")" = 3
check "an all-OK run: counts from global_stats.json" \
  bash -c "grep -q '\"requests\": 1290, \"ok\": 1290, \"ko\": 0, \"rps\": 80.6' <<<'$(row_of nginx)'"
check "an all-OK run: p50/p95/p99/mean/max" \
  bash -c "grep -q '\"p50_ms\": 544, \"p75_ms\": [0-9]*, \"p95_ms\": 548, \"p99_ms\": 549, \"mean_ms\": 542, \"min_ms\": [0-9]*, \"max_ms\": 597' <<<'$(row_of nginx)'"
check "parameters are copied as numbers" bash -c "grep -q '\"scenario\": \"quick\", \"users\": 50' <<<'$(row_of nginx)'"
check "a failed run: KO counted" bash -c "grep -q '\"ok\": 0, \"ko\": 57' <<<'$(row_of kodiak)'"
check "a failed run: Gatling's top error is kept" bash -c "grep -q 'Connection refused (57×)' <<<'$(row_of kodiak)'"
check "a run without results: the note says why" bash -c "grep -q '\"error\": \"mule is not available yet\"' <<<'$(row_of mule-http)'"
check "links point at each Gatling report" test -f "$work/ok/nginxsimulation-20261122134641000/js/global_stats.json" -a \
  -n "$(grep -o '"report": "ok/nginxsimulation-20261122134641000/index.html"' "$work/results.json")"

report render --results "$work/results.json" --out-dir "$work" --reference "$here/reference-2015.json" \
  --title "selftest" --meta "date=today" --ceiling 89.3 --delay-ms 500 >"$work/table.txt"
check "the console table lists every target" bash -c "grep -q '^nginx (9501) ' '$work/table.txt' && grep -q '^Kodiak (9401) ' '$work/table.txt' && grep -q '^Mule new HTTP (9301) *no data' '$work/table.txt'"
check "the console table flags failures" grep -q '! kodiak: 57 failed requests' "$work/table.txt"
check "report.md has today's rows beside the 2015 ones" grep -q '^| Mule new HTTP (9301) | no data .* | ~236 | 0 |$' "$work/report.md"
check "report.md labels the 2015 rows as other hardware" grep -q 'other hardware' "$work/report.md"
check "report.html draws three inline SVG charts" test "$(grep -c '<svg ' "$work/report.html")" = 3
check "report.html needs nothing from the network" bash -c "! grep -v 'xmlns=\"http://www.w3.org/2000/svg\"' '$work/report.html' | grep -qiE 'https?://|<script|<link'"
check "report.html shows the failed target in the failures chart" grep -q '>57</text>' "$work/report.html"
check "report.html marks a missing target as no data" grep -q '>no data</text>' "$work/report.html"
check "latencies spanning 1 ms to 549 ms get a log axis" grep -q '>ms (log scale)</text>' "$work/report.html"
check "throughput keeps a linear axis" grep -q '>req/s</text>' "$work/report.html"
check "report.html draws its three charts in headless Chromium, offline" \
  "$here/render-check.sh" --expect-failures "$work/report.html" "$work/report.png"

report render --results "$work/results.json" --out-dir "$work" --reference "$here/reference-2015.json" \
  --reference-beside no >/dev/null
check "other profiles keep 2015 out of today's table" bash -c "! grep -q '2015 req/s' '$work/report.md' && grep -q 'other hardware' '$work/report.md'"

check "verdict fails when a target failed requests or produced nothing" bash -c "! '$java' '$here/Report.java' verdict --results '$work/results.json'"
head -n 2 "$work/results.json" >"$work/ok.json" && echo "]" >>"$work/ok.json"
sed -i '2s/},$/}/' "$work/ok.json"
check "verdict passes when every request succeeded" report verdict --results "$work/ok.json"

check "bench.sh rejects an unknown target" bash -c "'$root/bin/bench.sh' gatling --targets nosuch; [ \$? = 2 ]"
check "bench.sh rejects a non-numeric --users" bash -c "'$root/bin/bench.sh' gatling --users many; [ \$? = 2 ]"
check "bench.sh rejects an unknown subcommand" bash -c "'$root/bin/bench.sh' nosuch; [ \$? = 2 ]"
check "bench.sh works through a symlink" bash -c "ln -s '$root/bin/bench.sh' '$work/b' && '$work/b' gatling --help | grep -q 'usage: bin/bench.sh gatling'"

if [ "$failures" -gt 0 ]; then
  echo "selftest: $failures check(s) failed"
  exit 1
fi
echo "selftest: all checks passed"
