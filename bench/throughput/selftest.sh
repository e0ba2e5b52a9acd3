#!/usr/bin/env bash
# Checks the throughput bench's report and the argument handling of run.sh and compare-builds.sh without
# running any load (~30 s):
#   bench/throughput/selftest.sh
# A made-up runs.tsv with round numbers, as run.sh writes it, goes through run.sh --report (the same path
# a run's report takes: bench/report with bench/throughput/report.json), so that every derived figure,
# table cell and check below can be worked out by hand.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/report.sh
. "$root/bench/lib/report.sh"
# shellcheck source=../../bin/lib/packages.sh
. "$root/bin/lib/packages.sh"
# jq reads single values out of results.json for the checks below (the bench itself does not need it).
ensure_packages "throughput selftest" jq || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=../lib/check.sh
. "$root/bench/lib/check.sh"
has() { grep -qF -- "$2" "$1"; }
tsv() { local IFS=$'\t'; echo "$*"; }

# ---- the fixture: three cells of the matrix and one scale level ----------------------------------------
m80="matrix 512 B × 80" m1280="matrix 512 B × 1280" m640="matrix 10 KB × 640" s8000="scale 8000 connections, 500 ms upstream"
fixture() {
  tsv phase target scenario size payload connections repetition position planned_s proxied upstream_delay_ms \
    requests duration_us bytes err_connect err_read err_write err_status err_timeout \
    mean_us p50_us p75_us p90_us p95_us p99_us max_us \
    proxy_user_ticks proxy_sys_ticks upstream_ticks wrk_ticks accounted_ticks machine_busy_ticks machine_total_ticks \
    wall_us rss_kb fds upstream_connects machine_accepts proxy_jit_ticks proxy_gc_ticks live_heap_kb hz note
  # Kodiak: 101,000-103,000 requests in 10 s; 300 + 100 ticks at 100 Hz = 4 s of CPU, ~39.6 µs per request.
  # The targets rotate, as run.sh runs them; the report lists them in its own order all the same.
  for rep in 1 2 3; do
    tsv matrix nginx "$m80" "512 B" 512 80 $rep 1 10 1 0 200000 10000000 120000000 0 0 0 0 0 \
      1000 900 1000 1200 1500 3000 6000 200 200 160 300 860 860 2000 10300000 40960 240 0 81 - - - 100 ""
    tsv matrix kodiak "$m80" "512 B" 512 80 $rep 2 10 1 0 $((100000 + rep * 1000)) 10000000 60000000 0 0 0 0 0 \
      2000 1500 1800 2500 3000 5000 9000 300 100 80 150 630 630 2000 10300000 204800 250 0 81 10 5 - 100 ""
    tsv matrix haproxy "$m80" "512 B" 512 80 $rep 3 10 1 0 150000 10000000 90000000 0 0 0 0 0 \
      1000 900 1000 1200 1500 3500 6000 150 150 120 200 620 620 2000 10300000 20480 230 0 81 - - - 100 ""
    tsv matrix direct "$m80" "512 B" 512 80 $rep 4 10 0 0 400000 10000000 240000000 0 0 0 0 0 \
      500 400 500 600 700 1000 3000 - - 300 600 900 900 2000 10300000 - - 80 80 - - - 100 ""
  done
  # At 1,280 connections Kodiak's p99 is 90 ms over nginx's: beyond the p99 target's 640 connections.
  tsv matrix kodiak "$m1280" "512 B" 512 1280 1 1 10 1 0 300000 10000000 180000000 0 0 0 0 0 \
    50000 40000 60000 80000 90000 100000 200000 500 200 200 300 1200 1200 2000 10300000 307200 1400 0 1281 20 20 - 100 ""
  tsv matrix nginx "$m1280" "512 B" 512 1280 1 2 10 1 0 300000 10000000 180000000 0 0 0 0 0 \
    5000 4000 6000 8000 9000 10000 20000 400 200 200 300 1100 1100 2000 10300000 51200 1300 0 1281 - - - 100 ""
  # A failing Kodiak run: 5 status errors and 2 timeouts, 12 new upstream connections; the machine was busy
  # with others (1,250 of 2,000 ticks busy, 600 of them not wrk's, the proxy's or the backend's).
  tsv matrix kodiak "$m640" "10 KB" 10240 640 1 1 10 1 0 50000 10000000 60000000 0 0 0 5 2 \
    5000 4000 6000 8000 9000 20000 90000 250 250 80 70 650 1250 2000 10300000 307200 1400 12 653 50 20 - 100 ""
  # nginx: 25 connections accepted beyond wrk's 640 + 1.
  tsv matrix nginx "$m640" "10 KB" 10240 640 1 2 10 1 0 60000 10000000 60000000 0 0 0 0 0 \
    5000 4000 6000 8000 9000 15000 90000 150 150 80 70 450 450 2000 10300000 51200 1300 0 666 - - - 100 ""
  # Scale: 300,000 requests in 20 s = 15,000 req/s against a ceiling of 8,000 / 0.5 s; Kodiak at 293 MB.
  tsv scale kodiak "$s8000" "512 B" 512 8000 1 1 20 1 500 300000 20000000 30000000 0 0 0 0 0 \
    510000 505000 508000 512000 520000 550000 900000 600 300 500 300 1700 1700 4000 20300000 300000 16040 - 8000 5 30 - 100 ""
  tsv scale nginx "$s8000" "512 B" 512 8000 1 2 20 1 500 280000 20000000 28000000 0 0 0 0 0 \
    510000 505000 508000 512000 520000 560000 900000 400 300 500 300 1500 1500 4000 20300000 100000 16030 - 8000 - - - 100 ""
  tsv scale direct "$s8000" "512 B" 512 8000 1 3 20 0 500 310000 20000000 31000000 0 0 0 0 0 \
    505000 502000 505000 508000 510000 530000 700000 - - 900 300 1200 1200 4000 20300000 - - - 8000 - - - 100 "wrk exit 1"
  # The live-heap run: Kodiak held 40,960 kB after the histogram's full collection.
  tsv heap kodiak "live heap at 8000 connections, 500 ms upstream" "512 B" 512 8000 1 1 20 1 500 300000 20000000 30000000 0 0 0 0 0 \
    510000 505000 508000 512000 520000 560000 900000 600 300 500 300 1700 1700 4000 20300000 250000 16040 - 8000 5 30 40960 100 ""
}

run=$here/run.sh
mkdir -p "$work/run"
fixture >"$work/run/runs.tsv"
if ! "$run" --report "$work/run" >"$work/report.log" 2>&1; then
  cat "$work/report.log" >&2
  echo "FAIL run.sh --report did not write the fixture's report" >&2
  exit 1
fi
results=$work/run/results.json md=$work/run/report.md

# ---- results.json: schema-valid, and the figures report.json's formulas derive ------------------------
# field TARGET SCENARIO REPETITION FIELD: one row's value, as jq prints it.
field() {
  jq -r --arg t "$1" --arg s "$2" --argjson r "$3" --arg f "$4" \
    '.rows[] | select(.target == $t and .scenario == $s and .repetition == $r) | .[$f]' "$results"
}
is() { [ "$(field "$1" "$2" "$3" "$4")" = "$5" ]; }
check "results.json follows bench/results.schema.json" report_tool validate "$results"
check "one row per recorded run" test "$(jq '.rows | length' "$results")" = 20
check "live heap in MB, on its own run" is kodiak "live heap at 8000 connections, 500 ms upstream" 1 live_heap_mb 40
check "req/s: 101,000 requests in wrk's 10 s" is kodiak "$m80" 1 rps 10100
check "CPU µs per request: 400 ticks at 100 Hz over 101,000 requests" is kodiak "$m80" 1 cpu_us_per_req 39.6
check "its user part" is kodiak "$m80" 1 cpu_user_us_per_req 29.7
check "its system part" is kodiak "$m80" 1 cpu_sys_us_per_req 9.9
check "its JIT and GC parts" is kodiak "$m80" 1 cpu_jit_us_per_req 0.99
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

# ---- report.md: tables of medians [min–max], checks against the issue's targets ------------------------
check "report.md: a cell's median [min–max] and the ratio to nginx" \
  has "$md" '| 512 B | 80 | 10,200 [10,100–10,300] | 20,000 | 15,000 | 40,000 | 0.51 [0.51–0.52] | 0.75 | 2.00 |'
check "report.md: targets in the report's order, not the runs' rotation" \
  has "$md" '| size | connections | kodiak req/s | nginx req/s | haproxy req/s | direct req/s |'
check "report.md: CPU per request of the proxies only" \
  has "$md" '| 512 B | 80 | 39.2 [38.8–39.6] | 20.0 | 20.0 | 1.96 [1.94–1.98] | 1.00 |'
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
check "report.md: the live heap beside the resident memory" has "$md" '| 8000 | 40 | 244 |'
check "the live-heap run is not one of the scale runs" bash -c "! grep -q 'scale 8000 connections.*(244)' '$md'"
check "check: the disturbed run" has "$md" '| not met (6/7) | matrix × 10 KB × 640 × 1 (30) |'
check "no check on targets the run did not measure (Undertow, Vert.x)" bash -c "! grep -qE 'Undertow|Vert.x|\(0/0\)' '$md'"
check "no section for payloads the run did not measure" bash -c "! grep -qE '^## (1|5|100) KB' '$md'"
check "report.html: every chart drawn in headless Chromium, offline" "$root/bench/report/render-check.sh" "$work/run/report.html"

# ---- run.sh: remaking a report, comparing, and argument handling, without starting anything ------------
mkdir -p "$work/again"
cp "$work/run/runs.tsv" "$work/run/results.json" "$work/again/"
check "--report keeps the run's description" \
  bash -c "'$run' --report '$work/again' && jq -e '.meta.command == \"bin/bench.sh throughput --report $work/run\"' '$work/again/results.json'"
mkdir -p "$work/broken"
{ fixture; tsv matrix kodiak "$m80" "512 B" 512; } >"$work/broken/runs.tsv"
check "--report refuses a runs.tsv line that lacks fields" bash -c "! '$run' --report '$work/broken'"
mkdir -p "$work/slower"
# B: Kodiak with twice the user time everywhere.
fixture | awk -F'\t' -v OFS='\t' 'NR > 1 && $2 == "kodiak" { $27 *= 2 } { print }' >"$work/slower/runs.tsv"
"$run" --report "$work/slower" >/dev/null 2>&1 || true
report_tool compare "$results" "$work/slower/results.json" --out-dir "$work/compare" --label-a A --label-b B >/dev/null 2>&1 || true
check "compare: B/A per cell and target, with its spread" \
  has "$work/compare/compare.md" '| 512 B | 80 | kodiak | 39.2 [38.8–39.6] | 68.6 [68.0–69.3] | 1.75 [1.72–1.78] |'
check "compare: the other targets unchanged" has "$work/compare/compare.md" '| 512 B | 80 | nginx | 20.0 | 20.0 | 1.00 |'

code() { local rc=0; "$@" >/dev/null 2>&1 || rc=$?; echo "$rc"; }
check "--help exits 0" test "$(code "$run" --help)" = 0
check "an unknown option exits 2" test "$(code "$run" --bogus)" = 2
check "a bad payload exits 2" test "$(code "$run" --payloads 1x)" = 2
check "an unknown target exits 2" test "$(code "$run" --targets kodiak,envoy)" = 2
check "more connections than wrk's open files exits 2" test "$(code "$run" --scale 50000)" = 2
check "--no-matrix --no-scale exits 2" test "$(code "$run" --no-matrix --no-scale)" = 2
check "bin/bench.sh throughput --compare with a missing file exits 2" \
  test "$(code "$root/bin/bench.sh" throughput --compare "$results" "$work/none.json")" = 2
check "a KODIAK_HOME that is no directory exits 2" test "$(KODIAK_HOME=$work/none code "$run" --quick)" = 2
check "--as-shipped without bin/proxy.sh exits 2" test "$(KODIAK_LAUNCH=java code "$run" --as-shipped --quick)" = 2
check "through a symlink" bash -c "ln -s '$run' '$work/tp' && '$work/tp' --help"

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
