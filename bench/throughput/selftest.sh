#!/usr/bin/env bash
# Checks the throughput report generator and the argument handling of run.sh and compare-builds.sh without running any load (~15 s):
#   bench/throughput/selftest.sh
# The runs.tsv below is made up with round numbers, so every derived figure can be checked by hand.
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
# The results.json line of one run.
row() { grep "\"target\": \"$1\", .*\"scenario\": \"$2\", .*\"repetition\": $3," "$work/results.json"; }
has() { grep -qF -- "$2" <<<"$1"; }

header="phase	target	payload	connections	repetition	position	planned_s	requests	duration_us	bytes	err_connect	err_read	err_write	err_status	err_timeout	mean_us	p50_us	p75_us	p90_us	p95_us	p99_us	max_us	proxy_user_ticks	proxy_sys_ticks	upstream_ticks	wrk_ticks	machine_busy_ticks	machine_total_ticks	wall_us	rss_kb	fds	upstream_connects	machine_accepts	proxy_jit_ticks	proxy_gc_ticks	hz	note"
{
  echo "$header"
  # 100,000 requests in 10 s = 10,000 req/s; 300 + 100 ticks at 100 Hz = 4 s of CPU = 40 µs per request.
  for rep in 1 2 3; do
    echo "matrix	kodiak	512	80	$rep	1	10	$((100000 + rep * 1000))	10000000	60000000	0	0	0	0	0	2000	1500	1800	2500	3000	5000	9000	300	100	80	150	630	2000	10300000	204800	250	0	81	10	5	100	"
    echo "matrix	nginx	512	80	$rep	2	10	200000	10000000	120000000	0	0	0	0	0	1000	900	1000	1200	1500	3000	6000	200	200	160	300	860	2000	10300000	40960	240	0	81	-	-	100	"
    echo "matrix	haproxy	512	80	$rep	3	10	150000	10000000	90000000	0	0	0	0	0	1000	900	1000	1200	1500	3500	6000	150	150	120	200	620	2000	10300000	20480	230	0	81	-	-	100	"
    echo "matrix	direct	512	80	$rep	4	10	400000	10000000	240000000	0	0	0	0	0	500	400	500	600	700	1000	3000	-	-	300	600	900	2000	10300000	-	-	80	80	-	-	100	"
  done
  # One failing Kodiak run: 5 status errors and 2 timeouts; the machine was busy with others (1,250 of 2,000
  # ticks busy, 600 of them not wrk's, the proxy's or the backend's).
  echo "matrix	kodiak	10240	640	1	1	10	50000	10000000	60000000	0	0	0	5	2	5000	4000	6000	8000	9000	20000	90000	250	250	80	70	1250	2000	10300000	307200	1400	12	653	50	20	100	"
  echo "matrix	nginx	10240	640	1	2	10	60000	10000000	60000000	0	0	0	0	0	5000	4000	6000	8000	9000	15000	90000	150	150	80	70	450	2000	10300000	51200	1300	0	666	-	-	100	"
  echo "scale	kodiak	512	8000	1	1	20	300000	20000000	30000000	0	0	0	0	0	510000	505000	508000	512000	520000	550000	900000	600	300	500	300	1700	4000	20300000	300000	16040	-	8000	5	30	100	"
  echo "scale	direct	512	8000	1	2	20	310000	20000000	31000000	0	0	0	0	0	505000	502000	505000	508000	510000	530000	700000	-	-	900	300	1200	4000	20300000	-	-	-	8000	-	-	100	wrk exit 0"
} >"$work/runs.tsv"

"$java" "$here/ThroughputReport.java" --runs "$work/runs.tsv" --out-dir "$work" --meta "date=today" \
  --meta "command=selftest" >"$work/console.txt"

check "results.json holds one row per run" test "$(grep -c '"target"' "$work/results.json")" = 16
k1=$(row kodiak "matrix 512 B × 80" 1)
check "req/s from requests and wrk's duration" has "$k1" '"requests": 101000, "ok": 101000, "ko": 0'
check "req/s value" has "$k1" '"rps": 10100,'
check "CPU µs per request from the proxy's ticks" has "$k1" '"cpu_us_per_req": 39.6,'
check "user and system parts" has "$k1" '"cpu_user_us_per_req": 29.7, "cpu_sys_us_per_req": 9.9,'
check "JIT and GC parts" has "$k1" '"cpu_jit_us_per_req": 0.99, "cpu_gc_us_per_req": 0.5,'
check "latency in ms" has "$k1" '"p50_ms": 1.5, "p75_ms": 1.8, "p90_ms": 2.5, "p95_ms": 3, "p99_ms": 5, "max_ms": 9'
check "resident memory in MB" has "$k1" '"rss_mb": 200,'
check "the payload and connections are fields" has "$k1" '"payload": 512, "connections": 80, "repetition": 1'
check "other CPU: busy time that was not wrk, proxy or backend" has "$k1" '"other_cpu_pct": 0,'
d1=$(row direct "matrix 512 B × 80" 1)
check "direct has no proxy CPU" has "$d1" '"cpu_us_per_req": null'
check "direct's backend CPU per request" has "$d1" '"upstream_cpu_us_per_req": 7.5,'
kf=$(row kodiak "matrix 10 KB × 640" 1)
check "errors: status and socket errors are KO" has "$kf" '"ok": 49995, "ko": 7,'
check "error breakdown" has "$kf" '"errors": {"connect": 0, "read": 0, "write": 0, "status": 5, "timeout": 2}'
check "other CPU when someone else used the machine" has "$kf" '"other_cpu_pct": 30,'
check "upstream connections opened" has "$kf" '"upstream_connects": 12,'
nf=$(row nginx "matrix 10 KB × 640" 1)
check "client reconnects: accepts beyond wrk's and upstream ones" has "$nf" '"client_reconnects_est": 25'
check "no reconnects when the accepts add up" has "$kf" '"client_reconnects_est": 0'
check "direct: the backend's accepts are wrk's own" has "$d1" '"client_reconnects_est": 0'
ks=$(row kodiak "scale 8000 connections, 500 ms upstream" 1)
check "scale rows carry the ceiling" has "$ks" '"ceiling_rps": 16000, "of_ceiling": 0.9375'
ds=$(row direct "scale 8000 connections, 500 ms upstream" 1)
check "a run's note becomes its error field" has "$ds" '"error": "wrk exit 0"'

md=$work/report.md
check "report.md: the summary line of a cell, medians over repetitions" \
  grep -qF '| 512 B × 80 | 10,200 | 20,000 | 15,000 | 40,000 | 0.51 | 39.2 / 20.0 / 20.0 | 5.00 / 3.00 / 3.50 | 0 | 0 % |' "$md"
check "report.md: median [min–max] in the per-payload table" grep -qF '10,200 [10,100–10,300]' "$md"
check "report.md: Kodiak/nginx CPU ratio" grep -qF '| 80 | 39.2 [38.8–39.6] | 20.0 | 20.0 | 1.96 | 1.0 / 0.5 |' "$md"
check "report.md: scale against direct and the ceiling" grep -qF '| 8000 | Kodiak | 15,000 | 0.97 | 0.94 | 0 |' "$md"
check "report.md: verdicts count the cells" grep -qF '| req/s ≥ nginx'"'"'s (median), every cell | not met (0/2) |' "$md"
check "report.md: errors verdict names the cell" grep -qF 'misses: 10 KB×640 (7)' "$md"
check "report.md: 8,000 connections against direct" grep -qF '| at 8000 connections (500 ms upstream), req/s ≥ 0.95 × direct'"'"'s | met (1/1) |' "$md"
check "report.md: memory target" grep -qF 'resident memory ≤ 256 MB | not met (0/1) | misses: 293 MB' "$md"
check "report.md: the disturbed run is flagged" grep -qF '1 of 16 runs shared the machine with other work' "$md"
check "report.md: meta lines" grep -qF -- '- **command**: selftest' "$md"
html=$work/report.html
check "report.html: inline SVG charts" test "$(grep -c '<svg ' "$html")" -ge 8
check "report.html: nothing loaded from the network" bash -c "! grep -E '(src|href)=\"?https?:' '$html'"
check "console: the summary table is printed" grep -qF '| 512 B × 80 | 10,200 |' "$work/console.txt"

# run.sh: argument handling, without starting anything.
run=$here/run.sh
code() { local rc=0; "$@" >/dev/null 2>&1 || rc=$?; echo "$rc"; }
check "--help exits 0" test "$(code "$run" --help)" = 0
check "an unknown option exits 2" test "$(code "$run" --bogus)" = 2
check "a bad payload exits 2" test "$(code "$run" --payloads 1x)" = 2
check "an unknown target exits 2" test "$(code "$run" --targets kodiak,envoy)" = 2
check "more connections than wrk's open files exits 2" test "$(code "$run" --scale 50000)" = 2
check "--no-matrix --no-scale exits 2" test "$(code "$run" --no-matrix --no-scale)" = 2
mkdir -p "$work/again"
cp "$work/runs.tsv" "$work/again/"
printf '%s\n' "date=today" "command=again" >"$work/again/meta.txt"
check "--report re-renders a run's directory" bash -c "'$run' --report '$work/again' && grep -qF -- '- **command**: again' '$work/again/report.md'"
check "a KODIAK_HOME that is no directory exits 2" test "$(KODIAK_HOME=$work/none code "$run" --quick)" = 2
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

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed; outputs in $work" >&2
  trap - EXIT
  exit 1
fi
echo "all checks passed"
