#!/usr/bin/env bash
# bin/bench.sh failover [--quick] [--rounds N] [--targets kodiak,nginx,haproxy] [--connections N]
#
# Failover, side by side: each proxy (one at a time) in front of the same three servers
# (FailoverStub.java, 20 ms per request, on 127.0.0.1:9711-9713), loaded by FailoverLoad.java with
# CONNECTIONS keep-alive clients sending half GET, half POST, each request with a unique
# X-Request-Id. After a warm-up, a run of 60 s: 20 s in, the server on 9712 is killed (kill -9), and
# 20 s later it is started again. Reported per proxy (report.md, report.html, results.json in
# target/bench/failover-<timestamp>/, from the runs' rows in failover.jsonl): failed requests, GET and
# POST apart; requests that reached a server twice (the ids in the servers' logs); when the proxy took
# the dead server out (its own log line) and when the restarted server got a request again; p99 overall
# and while the server was down. --rounds N (default 3) repeats the whole sequence, the targets in turn
# within each round; the report gives each figure's median and range. --quick: one round, 5 s warm-up,
# kill at 8 s, restart at 16 s, 24 s run. FAILOVER_PORT_BASE (default 9700) moves every port.
#
# The proxies: Kodiak as shipped by bin/proxy.sh, its group with passive health (max-fails 1,
# fail-timeout 10s), active checks (1s, fall 2, rise 2) and retries on connect-failure, reset,
# 502-504; nginx with max_fails=1 fail_timeout=10s and proxy_next_upstream error timeout http_502
# http_503 http_504 (nginx OSS has no active checks); HAProxy with check inter 1s fall 2 rise 2,
# option redispatch, retries 2 and retry-on conn-failure empty-response 502 503 504.
# Bounded: every load run stops by itself; everything started is stopped by pid, also on errors.
#
# The pieces: options.sh (arguments, ports), services.sh (the proxies' configurations), measure.sh (a
# run's row); bench/lib/common.sh loads the shared ones (targets.sh starts and stops services, rows.sh
# writes by name), bench/lib/failover-servers.sh the servers and the load.
set -euo pipefail

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/common.sh
. "$root/bench/lib/common.sh"
for piece in "$root"/bench/lib/{request-row,failover-servers}.sh "$here"/{options,services,measure}.sh; do
  # shellcheck source=/dev/null
  . "$piece"
done

args="$*"
parse_options "$@"
java17=$(daemon_java 17) || { echo "failover: Java 17 not found" >&2; exit 1; }
needs=()
in_targets nginx && needs+=(nginx)
in_targets haproxy && needs+=(haproxy)
[ ${#needs[@]} -eq 0 ] || ensure_packages failover "${needs[@]}"
export PATH=$PATH:/usr/sbin
TARGETS_JAVA=$java17 TARGETS_KODIAK_HOME=$root TARGETS_KODIAK_LAUNCH=proxy.sh

stamp=$(date -u +%Y%m%d-%H%M%S)
out=$root/target/bench/failover-$stamp
mkdir -p "$out/logs"
rows_open "$out/failover.jsonl" "${FAILOVER_FIELDS[@]}"
load_pid=""
cleanup() {
  [ -z "$load_pid" ] || kill -TERM "$load_pid" 2>/dev/null || true
  targets_stop_all
}
trap cleanup EXIT INT TERM

# run_one TARGET ROUND: the servers and the proxy, a warm-up, the run with its kill and restart, a row.
run_one() {
  local t=$1 round=$2 dir=$out/r$2/$1 i killed restarted
  targets_init "$dir" "$out/logs/services.log"
  log "round $round, $t: start the three servers and the proxy"
  for i in 0 1 2; do server_start "$i" 20 "$dir/server-$i.log"; done
  proxy_start "$t"
  log "round $round, $t: warm-up ${warmup}s"
  failover_load "${PORT[$t]}" "$connections" "$warmup" "$dir/warmup.tsv" warm
  log "round $round, $t: run ${duration}s"
  failover_load "${PORT[$t]}" "$connections" "$duration" "$dir/requests.tsv" run &
  load_pid=$!
  wait_for_load "${PORT[$t]}" || log "round $round, $t: WARNING: no client connected within 60 s"
  sleep "$kill_at"
  killed=$(now_ms)
  server_kill "$victim"
  log "round $round, $t: killed the server on ${SERVER_PORTS[$victim]}"
  sleep $((restart_at - kill_at))
  server_start "$victim" 20 "$dir/server-$victim.log"
  restarted=$(now_ms)
  log "round $round, $t: restarted it"
  wait "$load_pid"
  load_pid=""
  targets_stop_all
  record_run "$t" "$round" "$dir" "$killed" "$restarted"
  bench_sample_load
}

if in_targets kodiak; then kodiak_build_if_stale "$root" "$out/logs/build.log" || exit 1; fi
bench_begin "$out"
log "targets $targets; $connections connections; warm-up ${warmup}s; run ${duration}s, kill at ${kill_at}s, restart at ${restart_at}s; load average $BENCH_LOAD_BEFORE"
for round in $(seq 1 "$rounds"); do
  # Targets in turn, starting one further each round, so none always runs first.
  for k in "${!target_list[@]}"; do run_one "${target_list[$(((k + round - 1) % ${#target_list[@]}))]}" "$round"; done
done

tools=(java="$java17")
in_targets nginx && tools+=(nginx="$(command -v nginx)")
in_targets haproxy && tools+=(haproxy="$(command -v haproxy)")
mapfile -t versions < <(version_args "${tools[@]}")
bench_report failover "$out" "bin/bench.sh failover $args" --rows "$out/failover.jsonl" "${versions[@]}" \
  --param rounds="$rounds" --param connections="$connections" --param targets="$targets" \
  --param timeline="warm-up ${warmup} s, then a ${duration} s run: kill -9 at ${kill_at} s, restart at ${restart_at} s"
log "report: $out/report.md"
