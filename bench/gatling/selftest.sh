#!/usr/bin/env bash
# Checks the Gatling bench's report path and bench.sh's argument handling without running any load:
# the collector's unit tests, then rows from the fixtures' global_stats.json and simulation.log, the
# results file against the schema, report.md, report.html drawn in headless Chromium (installed when
# missing), and the verdict.
#   bench/gatling/selftest.sh
# Fixtures in testdata/ are real Gatling 3.12.0 outputs, trimmed to the files the collector reads: an
# all-OK nginx run, and a Kodiak run whose every request was refused (with its simulation.log).
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/report.sh
. "$root/bench/lib/report.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=../lib/check.sh
. "$root/bench/lib/check.sh"
# row_of TARGET FIELD...: those fields of TARGET's row in rows.tsv, tab-separated, by the header's names.
row_of() {
  local target=$1
  shift
  awk -F'\t' -v target="$target" -v fields="$*" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $1 == target { n = split(fields, f, " "); line = $col[f[1]]; for (i = 2; i <= n; i++) line = line "\t" $col[f[i]]; print line }
  ' "$work/rows.tsv"
}
is() { [ "$1" = "$2" ] || { echo "expected '$2', got '$1'"; return 1; }; }
fails() { if "$@"; then return 1; fi; }

# The collector's unit tests (GatlingRunsTest, GatlingErrorsTest) run with the module's, in bench/report/selftest.sh.
report_jar >/dev/null

cp -r "$here/testdata/ok" "$here/testdata/ko" "$work/"
# The manifest as run.sh writes it: runs.jsonl through results.sh's record_run (bench/lib/rows.sh, by name).
# shellcheck source=../lib/rows.sh
. "$root/bench/lib/rows.sh"
# shellcheck source=options.sh
. "$here/options.sh"
# shellcheck source=results.sh
. "$here/results.sh"
rows_open "$work/runs.jsonl" "${MANIFEST_FIELDS[@]}"
record_run nginx 0 ok
record_run kodiak 1 ko
record_run mule-http 125 missing "mule is not available yet"
report_tool gatling-rows --manifest "$work/runs.jsonl" --scenario original --out "$work/rows.tsv"

check "rows.tsv holds one row per manifest line" is "$(($(wc -l <"$work/rows.tsv") - 1))" 3
check "an all-OK run: counts and req/s from global_stats.json" \
  is "$(row_of nginx requests ok ko rps)" "$(printf '1290\t1290\t0\t80.625')"
check "an all-OK run: p50/p95/p99/mean/max from global_stats.json" \
  is "$(row_of nginx p50_ms p95_ms p99_ms mean_ms max_ms)" "$(printf '544\t548\t549\t542\t597')"
check "an all-OK run: links its Gatling report, relative to the run's directory" \
  is "$(row_of nginx gatling_report failure)" "$(printf 'ok/nginxsimulation-20261122134641000/index.html\t')"
check "a failed run: KO counted" is "$(row_of kodiak requests ok ko)" "$(printf '69\t0\t69')"
check "a failed run: the reason from simulation.log" \
  is "$(row_of kodiak failure)" "j.n.ConnectException: finishConnect(..) failed: Connection refused (69×)"
check "a run without results: no figures, the note says why" \
  is "$(row_of mule-http requests failure)" "$(printf '\tmule is not available yet')"

bench_begin "$work"
bench_report gatling "$work" "bench/gatling/selftest.sh" --rows "$work/rows.tsv" --rows "$here/reference-2015.tsv" \
  --version gatling=3.12.0 --param profile=original --param users=200 --param ceiling_rps=357.1 >/dev/null
check "results.json follows bench/results.schema.json" report_tool validate "$work/results.json"
check "report.md: a row per target, with Gatling's figures and the report link" \
  grep -qF '| nginx (9501) | 1,290 | 1,290 | 0 | 80.6 | 544 | 548 | 549 | 542 | 597 | [Gatling report](ok/nginxsimulation-20261122134641000/index.html) |  |' \
  "$work/report.md"
check "report.md: the failed target with its reason" grep -qF \
  '| Kodiak (9401) | 69 | 0 | 69 | 17.2 | 1 | 30 | 57 | 4 | 57 | [Gatling report](ko/kodiaksimulation-20261124164217661/index.html) | j.n.ConnectException: finishConnect(..) failed: Connection refused (69×) |' \
  "$work/report.md"
check "report.md: the target without results keeps its row" \
  grep -qF '| Mule new HTTP, persistent (9301) |  |  |  |  |  |  |  |  |  |  | mule is not available yet |' "$work/report.md"
check "report.md: this run's req/s beside the 2015 article's, original profile" \
  grep -qF '| mule-http |  | 236 |' "$work/report.md"
check "report.md: the 2015 figures are labelled other hardware" grep -q '^## Beside the 2015 article (other hardware)' "$work/report.md"
check "report.md: the stub's ceiling and the profile are given" grep -qF -e '- **ceiling_rps**: 357.1' "$work/report.md"
# KO, req/s, p50 and p99 per target, and req/s beside 2015.
check "report.html draws its five charts in headless Chromium, offline" \
  bash -c "'$root/bench/report/render-check.sh' '$work/report.html' '$work/report.png' | grep -q 'all 5 charts drawn'"

# The verdict judges this run's rows (run.sh leaves the 2015 ones out of it): results of chosen targets.
results_of() {
  local name=$1
  shift
  mkdir -p "$work/$name"
  awk -F'\t' -v keep=" $* " 'NR == 1 || index(keep, " " $1 " ")' "$work/rows.tsv" >"$work/$name/rows.tsv"
  report_tool results --bench gatling --spec "$here/report.json" --out "$work/$name/results.json" --command selftest \
    --started "$BENCH_STARTED" --rows "$work/$name/rows.tsv"
}
results_of with-ko nginx kodiak
results_of no-data nginx mule-http
results_of clean nginx
# refused_with FILE TEXT: the verdict fails on FILE and says TEXT.
refused_with() {
  local said
  if said=$(report_tool verdict --results "$1"); then
    echo "the verdict passed: $said"
    return 1
  fi
  grep -qF "$2" <<<"$said" || { echo "$said"; return 1; }
}
check "verdict fails on the run whose requests failed" refused_with "$work/with-ko/results.json" "kodiak (original) failed 69 request(s)"
check "verdict fails on a target that left no results" refused_with "$work/no-data/results.json" "mule-http (original) measured no request"
check "verdict passes when every request succeeded" report_tool verdict --results "$work/clean/results.json"
report_tool results --bench gatling --spec "$here/report.json" --out "$work/beside-2015/results.json" --command selftest \
  --started "$BENCH_STARTED" --rows "$work/clean/rows.tsv" --rows "$here/reference-2015.tsv" >/dev/null
check "verdict counts the 2015 article's failures against a run unless told this run's rows" \
  refused_with "$work/beside-2015/results.json" "failed"
check "run.sh's verdict (--where source=\"this run\") passes a clean run beside the 2015 rows" \
  report_tool verdict --results "$work/beside-2015/results.json" --where source="this run"

check "bench.sh rejects an unknown target" bash -c "'$root/bin/bench.sh' gatling --targets nosuch; [ \$? = 2 ]"
check "bench.sh rejects a non-numeric --users" bash -c "'$root/bin/bench.sh' gatling --users many; [ \$? = 2 ]"
check "bench.sh rejects a negative --warmup" bash -c "'$root/bin/bench.sh' gatling --targets nosuch --warmup -5 2>&1 | grep -q 'warmup must be'; s=(\"\${PIPESTATUS[@]}\"); [ \${s[0]} = 2 ] && [ \${s[1]} = 0 ]"
check "bench.sh rejects an unknown subcommand" bash -c "'$root/bin/bench.sh' nosuch; [ \$? = 2 ]"
check "bench.sh works through a symlink" bash -c "ln -s '$root/bin/bench.sh' '$work/b' && '$work/b' gatling --help | grep -q 'usage: bin/bench.sh gatling'"

checks_done "gatling selftest"
