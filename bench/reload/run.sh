#!/usr/bin/env bash
# bin/bench.sh reload [--quick] [--rounds N] [--reloads N] [--targets kodiak,nginx,haproxy] [--connections N]
#
# Configuration reloads under load, side by side: each proxy (one at a time) in front of three
# servers (bench/failover/FailoverStub.java, 10 ms per request, on 127.0.0.1:9611-9613), loaded by
# bench/failover/FailoverLoad.java with CONNECTIONS keep-alive clients (half GET, half POST).
# After a 5 s warm-up of each server on its own (the reloads send traffic to a server the proxy has
# not used yet: it must not be a cold JVM), a 15 s warm-up of the proxy and a 15 s baseline run
# without reloads, a run during which the
# configuration is reloaded once a second, RELOADS times (default 60), alternating between two
# files that differ in what operators change: the group's servers (9611+9612, then 9612+9613: one
# added, one removed and drained each time) and the upstream read timeout.
#   Kodiak  the file copied over the one in service, then bin/proxy.sh reload (the daemon as shipped)
#   nginx   nginx -s reload (new worker processes; the old ones finish their requests)
#   HAProxy master-worker mode (-W), SIGUSR2: the master starts a new worker with -sf, the old
#           one finishes its connections (HAProxy's documented seamless reload)
# Reported per proxy (report.md, report.html and results.json in target/bench/reload-<timestamp>/,
# rendered by bench/report from bench/reload/report.json and the rounds' rows in reload.jsonl): failed
# requests (connection errors and non-200), p50/p99/max latency in the baseline and during the
# reloads, how long a reload command took, and memory: the proxy's processes' RSS before the
# reloads and after them (Kodiak also: heap in use after a full GC), so growth per reload shows.
# --rounds N (default 3) repeats the whole sequence, the targets in turn; figures are medians with
# the range. --quick: one round, 5 s warm-up and baseline, 15 reloads. RELOAD_PORT_BASE (default
# 9600) moves every port.
# Bounded: every load run stops by itself; everything started is stopped by pid, also on errors.
#
# The pieces: options.sh (arguments, ports), services.sh (the proxies' two configurations, their reload),
# measure.sh (memory, a run's rows); bench/lib/common.sh loads the shared ones (targets.sh starts and
# stops services, rows.sh writes by name), bench/lib/failover-servers.sh the servers and the load.
set -euo pipefail

usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/common.sh
. "$root/bench/lib/common.sh"
for piece in "$root"/bench/lib/{request-row,failover-servers,start-command,process-sample}.sh "$here"/{options,services,measure}.sh; do
  # shellcheck source=/dev/null
  . "$piece"
done

args="$*"
parse_options "$@"
java17=$(daemon_java 17) || { echo "reload: Java 17 not found" >&2; exit 1; }
needs=()
in_targets nginx && needs+=(nginx)
in_targets haproxy && needs+=(haproxy)
[ ${#needs[@]} -eq 0 ] || ensure_packages reload "${needs[@]}"
export PATH=$PATH:/usr/sbin
TARGETS_JAVA=$java17 TARGETS_KODIAK_HOME=$root TARGETS_KODIAK_LAUNCH=proxy.sh

stamp=$(date -u +%Y%m%d-%H%M%S)
out=$root/target/bench/reload-$stamp
mkdir -p "$out/logs"
rows_open "$out/reload.jsonl" "${RELOAD_FIELDS[@]}"
load_pid=""
cleanup() {
  [ -z "$load_pid" ] || kill -TERM "$load_pid" 2>/dev/null || true
  targets_stop_all
}
trap cleanup EXIT INT TERM

# reload_once_a_second TARGET: the reloads, alternating B and A, each second whatever a reload took;
# each command's time in DIR/reload-times, failed_reloads counted; first and last set to when they began.
reload_once_a_second() {
  local t=$1 i tick done_at rest variant
  : >"$dir/reload-times"
  failed_reloads=0 first=$(now_ms)
  for i in $(seq 1 "$reloads"); do
    tick=$(now_ms)
    variant=$([ $((i % 2)) = 1 ] && echo b || echo a)
    proxy_reload "$t" "$variant" || failed_reloads=$((failed_reloads + 1))
    done_at=$(now_ms)
    echo "$((done_at - tick))" >>"$dir/reload-times"
    rest=$((1000 - (done_at - tick)))
    if ((rest > 0)); then sleep "$(printf '0.%03d' "$rest")"; fi
  done
  last=$(now_ms)
}

# run_one TARGET ROUND: the servers (each warmed on its own), the proxy, its warm-up and baseline, the run
# with the reloads, memory before and after, two rows.
run_one() {
  local t=$1 round=$2 port pid
  dir=$out/r$round/$t
  targets_init "$dir" "$out/logs/services.log"
  log "round $round, $t: start the servers and the proxy"
  for i in 0 1 2; do server_start "$i" 10 /dev/null; done
  for port in "${SERVER_PORTS[@]}"; do failover_load "$port" "$connections" "$server_warmup" "$dir/stub-$port-warmup.tsv" stub; done
  proxy_start "$t"
  pid=$(target_pid proxy)
  log "round $round, $t: warm-up ${warmup}s, baseline ${baseline}s"
  failover_load "${PORT[$t]}" "$connections" "$warmup" "$dir/warmup.tsv" warm
  failover_load "${PORT[$t]}" "$connections" "$baseline" "$dir/baseline.tsv" base
  rss_before=$(session_rss "$pid")
  heap_before=$(heap_after_gc "$t" "$pid")
  log "round $round, $t: $reloads reloads under load"
  failover_load "${PORT[$t]}" "$connections" "$run_seconds" "$dir/requests.tsv" run &
  load_pid=$!
  wait_for_load "${PORT[$t]}" || log "round $round, $t: WARNING: no client connected within 60 s"
  sleep 2
  reload_once_a_second "$t"
  wait "$load_pid"
  load_pid=""
  sleep 3
  rss_after=$(session_rss "$pid")
  heap_after=$(heap_after_gc "$t" "$pid")
  log "round $round, $t: RSS ${rss_before} -> ${rss_after} KiB; $failed_reloads reload commands failed"
  targets_stop_all
  record_run "$t" "$round" "$dir" "$first" "$last"
  bench_sample_load
}

if in_targets kodiak; then kodiak_build_if_stale "$root" "$out/logs/build.log" || exit 1; fi
bench_begin "$out"
run_seconds=$((reloads + 4))
log "targets $targets; $connections connections; warm-up ${warmup}s, baseline ${baseline}s, then $reloads reloads 1 s apart in a ${run_seconds}s run; load average $BENCH_LOAD_BEFORE"
for round in $(seq 1 "$rounds"); do
  # Targets in turn, starting one further each round, so none always runs first.
  for k in "${!target_list[@]}"; do run_one "${target_list[$(((k + round - 1) % ${#target_list[@]}))]}" "$round"; done
done

tools=(java="$java17")
in_targets nginx && tools+=(nginx="$(command -v nginx)")
in_targets haproxy && tools+=(haproxy="$(command -v haproxy)")
mapfile -t versions < <(version_args "${tools[@]}")
bench_report reload "$out" "bin/bench.sh reload $args" --rows "$out/reload.jsonl" "${versions[@]}" \
  --param rounds="$rounds" --param reloads="$reloads" --param connections="$connections" --param targets="$targets" \
  --param timeline="servers warmed ${server_warmup} s each; proxy warm-up ${warmup} s, baseline ${baseline} s, then ${run_seconds} s with a reload a second from 2 s on"
log "report: $out/report.md"
