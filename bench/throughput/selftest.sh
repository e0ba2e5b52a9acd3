#!/usr/bin/env bash
# Checks the throughput bench's report and the argument handling of run.sh and compare-builds.sh without
# running any load (~30 s):
#   bench/throughput/selftest.sh
# Made-up runs with round numbers (selftest-fixture.sh), written by name as run.sh writes them, go through
# run.sh --report (the same path a run's report takes: bench/report with bench/throughput/report.json), so
# that every derived figure, table cell and check below can be worked out by hand.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/common.sh
. "$root/bench/lib/common.sh"
# shellcheck source=../lib/check.sh
. "$root/bench/lib/check.sh"
for piece in options measure results selftest-fixture; do
  # shellcheck source=/dev/null
  . "$here/$piece.sh"
done
# jq reads single values out of results.json for the checks below.
ensure_packages "throughput selftest" jq || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
has() { grep -qF -- "$2" "$1"; }
run_sh=$here/run.sh

# report_of DIR FIXTURE: DIR/runs.jsonl from the fixture, then run.sh --report DIR; stops the self-test if it fails.
report_of() {
  mkdir -p "$1"
  rows_open "$1/runs.jsonl" "${RUN_FIELDS[@]}"
  "$2"
  "$run_sh" --report "$1" >"$1.log" 2>&1 || { cat "$1.log" >&2; echo "FAIL run.sh --report did not write $2's report" >&2; exit 1; }
}
report_of "$work/run" fixture
results=$work/run/results.json md=$work/run/report.md

# ---- rows.sh: a row is written by name, and checked when it is written --------------------------------
rows_open "$work/rows.jsonl" target:text requests note:text
check "rows: a row with every field is one JSON object" \
  bash -c '. "$0"; rows_open "$1" target:text requests note:text; row_new; row_set target kodiak requests 7 note "a \"b\"	c"; row_write
    [ "$(cat "$1")" = "{\"target\":\"kodiak\",\"requests\":7,\"note\":\"a \\\"b\\\"\\tc\"}" ]' "$root/bench/lib/rows.sh" "$work/rows-1.jsonl"
check "rows: a field not set is refused" \
  bash -c '. "$0"; rows_open "$1" target:text requests; row_new; row_set target kodiak; ! row_write' "$root/bench/lib/rows.sh" "$work/rows-2.jsonl"
check "rows: an undeclared field is refused" \
  bash -c '. "$0"; rows_open "$1" target:text; row_new; ! row_set target kodiak reqests 7' "$root/bench/lib/rows.sh" "$work/rows-3.jsonl"
check "rows: text in a number field is refused" \
  bash -c '. "$0"; rows_open "$1" requests; row_new; row_set requests 12x; ! row_write' "$root/bench/lib/rows.sh" "$work/rows-4.jsonl"
check "rows: '-' and '' are null" \
  bash -c '. "$0"; rows_open "$1" a b; row_new; row_set a - b ""; row_write; [ "$(cat "$1")" = "{\"a\":null,\"b\":null}" ]' \
  "$root/bench/lib/rows.sh" "$work/rows-5.jsonl"

# ---- results.json: schema-valid, and the figures report.json's formulas derive ------------------------
# field TARGET SCENARIO REPETITION FIELD: one row's value, as jq prints it.
field() {
  jq -r --arg t "$1" --arg s "$2" --argjson r "$3" --arg f "$4" \
    '.rows[] | select(.target == $t and .scenario == $s and .repetition == $r) | .[$f]' "${5:-$results}"
}
is() { [ "$(field "$1" "$2" "$3" "$4")" = "$5" ]; }
check "results.json follows bench/results.schema.json" report_tool validate "$results"
check "one row per recorded run" test "$(jq '.rows | length' "$results")" = 20
check "the contract's fields in every row" \
  jq -e '[.rows[] | has("target", "scenario", "requests", "ok", "ko", "rps", "p50_ms", "p95_ms", "p99_ms", "mean_ms")] | all' "$results"
check "live heap in MB, on its own run" is kodiak "live heap at 8000 connections, 500 ms upstream" 1 live_heap_mb 40
check "req/s: 101,000 requests in wrk's 10 s" is kodiak "$m80" 1 rps 10100
check "CPU µs per request: 400 ticks at 100 Hz over 101,000 requests" is kodiak "$m80" 1 cpu_us_per_req 39.6
check "its user part" is kodiak "$m80" 1 cpu_user_us_per_req 29.7
check "its system part" is kodiak "$m80" 1 cpu_sys_us_per_req 9.9
check "its JIT and GC parts" is kodiak "$m80" 1 cpu_jit_us_per_req 0.99
check "bytes allocated per request" is kodiak "$m80" 1 alloc_bytes_per_req 400
check "no allocation figure for nginx" is nginx "$m80" 1 alloc_bytes_per_req null
check "latency in ms from wrk's µs" is kodiak "$m80" 1 p99_ms 5
check "resident memory in MB" is kodiak "$m80" 1 rss_mb 200
check "direct has no proxy CPU" is direct "$m80" 1 cpu_us_per_req null
check "direct's backend CPU per request" is direct "$m80" 1 upstream_cpu_us_per_req 7.5
check "ko: status errors and socket errors" is kodiak "$m640" 1 ko 7
check "ok: the answers that were not errors" is kodiak "$m640" 1 ok 49995
check "other CPU: busy time that was not wrk's, the proxy's or the backend's" is kodiak "$m640" 1 other_cpu_pct 30
check "client reconnects: accepts beyond wrk's and the upstream ones" is nginx "$m640" 1 client_reconnects_est 25
check "no reconnects when the accepts add up" is kodiak "$m640" 1 client_reconnects_est 0
check "direct: the backend's accepts are wrk's own" is direct "$m80" 1 client_reconnects_est 0
check "scale: the ceiling is connections / 0.5 s" is kodiak "$s8000" 1 ceiling_rps 16000
check "scale: req/s against the ceiling" is kodiak "$s8000" 1 of_ceiling 0.9375
check "the matrix has no ceiling" is kodiak "$m80" 1 ceiling_rps null
check "a run's note stays with its row" is direct "$s8000" 1 note "wrk exit 1"

# ---- report.md: the verdict first, tables of medians [min–max], checks against the issues' targets -----
check "report.md opens with the verdict, before the run's description" \
  bash -c "sed -n 3p '$md' | grep -qx '## Verdict' && [ \$(grep -n '^## Verdict' '$md' | cut -d: -f1) -lt \$(grep -n '^- \*\*command' '$md' | cut -d: -f1) ]"
check "verdict: Kodiak against nginx in one sentence, the medians over the cells" \
  has "$md" "- kodiak: 0.83× nginx's req/s [0.51–1.00], 1.96× its CPU µs/req [1.17–2.00], over 3 cells."
check "verdict: a target with one figure" has "$md" "- direct: 2.00× nginx's req/s, over 1 cell."
check "verdict: the chart's figures as a table" has "$md" '| haproxy | 0.75 | 1.00 |'
check "report.md: a cell's median [min–max] and the ratio to nginx" \
  has "$md" '| 512 B | 80 | 10,200 [10,100–10,300] | 20,000 | 15,000 | 40,000 | 0.51 [0.51–0.52] | 0.75 | 2.00 |'
check "report.md: targets in the report's order, not the runs' rotation" \
  has "$md" '| size | connections | kodiak req/s | nginx req/s | haproxy req/s | direct req/s |'
check "report.md: CPU per request of the proxies only" \
  has "$md" '| 512 B | 80 | 39.2 [38.8–39.6] | 20.0 | 20.0 | 1.96 [1.94–1.98] | 1.00 |'
check "report.md: bytes allocated per request, JVM targets only" has "$md" '| 512 B | 80 | 400 |'
check "report.md: scale against direct" has "$md" '| 8000 | 15,000 | 14,000 | 15,500 | 0.97 | 0.90 |'
check "report.md: the run's notes" has "$md" 'scale 8000 connections, 500 ms upstream, direct, repetition 1: wrk exit 1'
check "check: req/s ≥ 0.95 × nginx's in 1 of 3 cells" has "$md" "| req/s ≥ 0.95 × nginx's, every cell (issue 16) | not met (1/3) |"
check "check: CPU ≤ 1.10 × nginx's names the cells" \
  has "$md" '| not met (0/3) | 512 B × 80 (1.961), 512 B × 1280 (1.166), 10 KB × 640 (2.000) |'
check "check: p99 judged up to 640 connections only" \
  has "$md" "| p99 ≤ nginx's + 1 ms, every cell up to 640 connections (issue 16) | not met (0/2) | 512 B × 80 (+2), 10 KB × 640 (+5) |"
check "check: zero errors, run by run" has "$md" '| zero errors, every run (issue 16) | not met (6/7) | matrix × 10 KB × 640 × 1 (7) |'
check "check: 8,000 connections against nginx" has "$md" "req/s ≥ nginx's, so its share of direct is at least nginx's (issue 16) | met (1/1) |"
check "check: resident memory" has "$md" '| 8,000 connections: resident memory ≤ 256 MB, every run (issue 16) | not met (0/1) | 8000 × 1 (293) |'
check "check: the live heap" has "$md" '| 8,000 connections: live heap ≤ 32 MB after a full collection (issue 16) | not met (0/1) | 8000 (40) |'
check "check: bytes allocated per request, a cell without the figure a miss" \
  has "$md" '| bytes allocated per request ≤ 512, every cell (issue 38) | not met (1/3) | 512 B × 1280 (not measured), 10 KB × 640 (not measured) |'
check "report.md: the live heap beside the resident memory" has "$md" '| 8000 | 40 | 244 |'
check "the live-heap run is not one of the scale runs" bash -c "! grep -q 'scale 8000 connections.*(244)' '$md'"
check "check: the disturbed run" has "$md" '| not met (6/7) | matrix × 10 KB × 640 × 1 (30) |'
check "no check on targets the run did not measure (Undertow, Vert.x, tracing)" bash -c "! grep -qE 'Undertow|Vert.x|tracing at 1 % sampling|\(0/0\)' '$md'"
check "no section for payloads the run did not measure" bash -c "! grep -qE '^## (1|5|100) KB' '$md'"
check "report.html: every chart drawn in headless Chromium, offline" "$root/bench/report/render-check.sh" "$work/run/report.html"

# ---- tracing: the cost per request against plain Kodiak, round by round ---------------------------------
report_of "$work/tracing" fixture_tracing
tmd=$work/tracing/report.md
check "tracing: CPU and bytes per request over Kodiak's, median [min–max] of the rounds" \
  has "$tmd" '| 512 B | 80 | 39.2 [38.8–39.6] | 40.0 | 45.0 | 0.8 [0.4–1.2] | 5.8 [5.4–6.2] | 400 | 600 | 1,500 | 200 | 1,100 |'
check "tracing: what the collectors received" has "$tmd" '|  | 6 | 120 |  | 0.7 | 340.0 |'
check "check: 1 % sampling within 1 µs" has "$tmd" "| tracing at 1 % sampling: CPU/request ≤ Kodiak's + 1 µs, every cell (issue 41) | met (1/1) |"
check "check: 100 % sampling over 5 µs" has "$tmd" "| tracing at 100 % sampling: CPU/request ≤ Kodiak's + 5 µs, every cell (issue 41) | not met (0/1) | 512 B × 80 (+5.78) |"
check "no verdict without its reference (nginx)" bash -c "! grep -q '^## Verdict' '$tmd'"

# ---- run.sh: remaking a report, comparing, and argument handling, without starting anything ------------
mkdir -p "$work/again"
cp "$work/run/runs.jsonl" "$work/run/results.json" "$work/again/"
check "--report keeps the run's description" \
  bash -c "'$run_sh' --report '$work/again' && jq -e '.meta.command == \"bin/bench.sh throughput --report $work/run\"' '$work/again/results.json'"
mkdir -p "$work/old"
# A run from before runs.jsonl: runs.tsv, its first line naming the fields.
jq -r -s '(.[0] | keys_unsorted) as $k | ($k | @tsv), (.[] | [.[$k[]] | . // "-"] | @tsv)' "$work/run/runs.jsonl" >"$work/old/runs.tsv"
check "--report remakes a run that wrote runs.tsv, by its header's names" \
  bash -c "'$run_sh' --report '$work/old' >/dev/null && grep -qF '| 512 B | 80 | 39.2 [38.8–39.6] | 20.0 | 20.0 | 1.96 [1.94–1.98] | 1.00 |' '$work/old/report.md'"
mkdir -p "$work/broken"
{ cat "$work/run/runs.jsonl"; echo '{"phase":"matrix","target":"kodiak",'; } >"$work/broken/runs.jsonl"
check "--report refuses a runs.jsonl line that is not JSON" bash -c "! '$run_sh' --report '$work/broken'"
mkdir -p "$work/slower"
# B: Kodiak with twice the user time everywhere.
jq -c 'if .target == "kodiak" then .proxy_user_ticks *= 2 else . end' "$work/run/runs.jsonl" >"$work/slower/runs.jsonl"
"$run_sh" --report "$work/slower" >/dev/null 2>&1 || true
report_tool compare "$results" "$work/slower/results.json" --out-dir "$work/compare" --label-a A --label-b B >/dev/null 2>&1 || true
check "compare: B/A per cell and target, with its spread" \
  has "$work/compare/compare.md" '| 512 B | 80 | kodiak | 39.2 [38.8–39.6] | 68.6 [68.0–69.3] | 1.75 [1.72–1.78] |'
check "compare: the other targets unchanged" has "$work/compare/compare.md" '| 512 B | 80 | nginx | 20.0 | 20.0 | 1.00 |'

code() { local rc=0; "$@" >/dev/null 2>&1 || rc=$?; echo "$rc"; }
check "--help exits 0" test "$(code "$run_sh" --help)" = 0
check "an unknown option exits 2" test "$(code "$run_sh" --bogus)" = 2
check "a bad payload exits 2" test "$(code "$run_sh" --payloads 1x)" = 2
check "an unknown target exits 2" test "$(code "$run_sh" --targets kodiak,envoy)" = 2
check "more connections than wrk's open files exits 2" test "$(code "$run_sh" --scale 50000)" = 2
check "--no-matrix --no-scale exits 2" test "$(code "$run_sh" --no-matrix --no-scale)" = 2
check "bin/bench.sh throughput --compare with a missing file exits 2" \
  test "$(code "$root/bin/bench.sh" throughput --compare "$results" "$work/none.json")" = 2
check "a KODIAK_HOME that is no directory exits 2" test "$(KODIAK_HOME=$work/none code "$run_sh" --quick)" = 2
check "--as-shipped without bin/proxy.sh exits 2" test "$(KODIAK_LAUNCH=java code "$run_sh" --as-shipped --quick)" = 2
check "through a symlink" bash -c "ln -s '$run_sh' '$work/tp' && '$work/tp' --help"

# compare-builds.sh: argument handling; every case below stops before building or starting anything.
compare=$here/compare-builds.sh
check "compare-builds: --help exits 0" test "$(code "$compare" --help)" = 0
check "compare-builds: one revision exits 2" test "$(code "$compare" HEAD)" = 2
check "compare-builds: a bad --rounds exits 2" test "$(code "$compare" --rounds 0 HEAD HEAD~1)" = 2
check "compare-builds: an unknown revision exits 2" test "$(code "$compare" HEAD no-such-revision-here)" = 2
check "compare-builds: the same commit twice exits 2" test "$(code "$compare" HEAD "$(git -C "$here" rev-parse HEAD)")" = 2
mkdir -p "$work/conf-1" "$work/conf-2"
echo 'proxy.listener.selector-threads = 1' >"$work/conf-1/try.conf"
echo 'proxy.listener.selector-threads = 2' >"$work/conf-2/try.conf"
check "compare-builds: a --conf-b that is no file exits 2" test "$(code "$compare" --conf-b "$work/none.conf" HEAD)" = 2
check "compare-builds: one revision with one conf twice exits 2" \
  test "$(code "$compare" --conf-a "$work/conf-1/try.conf" --conf-b "$work/conf-1/try.conf" HEAD)" = 2
check "compare-builds: two confs the report could not tell apart exit 2" \
  test "$(code "$compare" --conf-a "$work/conf-1/try.conf" --conf-b "$work/conf-2/try.conf" HEAD)" = 2

checks_done "throughput selftest" || { echo "outputs in $work" >&2; trap - EXIT; exit 1; }
