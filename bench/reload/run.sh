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
#   Kodiak  bin/proxy.sh reload -c FILE (the daemon as shipped)
#   nginx   nginx -s reload (new worker processes; the old ones finish their requests)
#   HAProxy master-worker mode (-W), SIGUSR2: the master starts a new worker with -sf, the old
#           one finishes its connections (HAProxy's documented seamless reload)
# Reported per proxy (report.md, report.html and results.json in target/bench/reload-<timestamp>/,
# rendered by bench/report from bench/reload/report.json and the rounds' rows in reload.tsv): failed
# requests (connection errors and non-200), p50/p99/max latency in the baseline and during the
# reloads, how long a reload command took, and memory: the proxy's processes' RSS before the
# reloads and after them (Kodiak also: heap in use after a full GC), so growth per reload shows.
# --rounds N (default 3) repeats the whole sequence, the targets in turn; figures are medians with
# the range. --quick: one round, 5 s warm-up and baseline, 15 reloads.
# Bounded: every load run stops by itself; everything started is stopped by pid, also on errors.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
failover=$root/bench/failover
# shellcheck source=../../bin/lib/daemon.sh
. "$root/bin/lib/daemon.sh"
# shellcheck source=../../bin/lib/packages.sh
. "$root/bin/lib/packages.sh"
# shellcheck source=../../bin/lib/build.sh
. "$root/bin/lib/build.sh"
# shellcheck source=../lib/report.sh
. "$root/bench/lib/report.sh"
# shellcheck source=../lib/versions.sh
. "$root/bench/lib/versions.sh"
# shellcheck source=../lib/request-stats.sh
. "$root/bench/lib/request-stats.sh"

args="$*"
targets=kodiak,nginx,haproxy
connections=16
rounds=3
reloads=60
warmup=15 baseline=15 stub_warmup=5
delay_ms=10
usage() { echo "usage: bin/bench.sh reload [--quick] [--rounds N] [--reloads N] [--targets kodiak,nginx,haproxy] [--connections N]" >&2; }
while [ $# -gt 0 ]; do
  case $1 in
    --quick) warmup=5 baseline=5 stub_warmup=3 reloads=15 rounds=1; shift ;;
    --rounds) rounds=${2:-}; shift 2 ;;
    --reloads) reloads=${2:-}; shift 2 ;;
    --targets) targets=${2:-}; shift 2 ;;
    --connections) connections=${2:-}; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage; exit 2 ;;
  esac
done
[[ $connections =~ ^[1-9][0-9]*$ ]] || { echo "reload: --connections takes a positive whole number" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "reload: --rounds takes a whole number from 1 to 99" >&2; exit 2; }
[[ $reloads =~ ^[1-9][0-9]{0,2}$ ]] || { echo "reload: --reloads takes a whole number from 1 to 999" >&2; exit 2; }
IFS=, read -r -a target_list <<<"$targets"
for t in "${target_list[@]}"; do
  case $t in kodiak|nginx|haproxy) ;; *) echo "reload: unknown target '$t' (kodiak, nginx, haproxy)" >&2; exit 2 ;; esac
done

java17=$(daemon_java 17) || { echo "reload: Java 17 not found" >&2; exit 1; }
jcmd=$(dirname "$java17")/jcmd
needs=()
[[ ,$targets, == *,nginx,* ]] && needs+=(nginx)
[[ ,$targets, == *,haproxy,* ]] && needs+=(haproxy)
[ ${#needs[@]} -eq 0 ] || ensure_packages reload "${needs[@]}"

stamp=$(date -u +%Y%m%d-%H%M%S)
out=$root/target/bench/reload-$stamp
mkdir -p "$out/logs"
log() { echo "[reload $(date -u +%H:%M:%S)] $*"; }
now_ms() { date +%s%3N; }

declare -A PORT=([kodiak]=9601 [nginx]=9602 [haproxy]=9603)
stub_ports=(9611 9612 9613)

# ---- everything started is recorded here and stopped by pid on exit -----------------------------
started=()   # "pidfile|marker"
cleanup() {
  local entry pidfile marker pid
  for entry in ${started[@]+"${started[@]}"}; do
    pidfile=${entry%%|*} marker=${entry#*|}
    if pid=$(daemon_pid "$pidfile" "$marker"); then kill -TERM "$pid" 2>/dev/null || true; fi
  done
  if [ -n "${load_pid:-}" ]; then kill -TERM "$load_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT INT TERM

start_stubs() {   # DIR
  local dir=$1 i port
  for i in 0 1 2; do
    port=${stub_ports[$i]}
    daemon_start "stub $port" "$dir/stub-$i.pid" "$dir/stub-$i.console.log" "FailoverStub.java $port" 127.0.0.1 "$port" 60 -- \
      "$java17" -Xmx256m -Dsun.net.httpserver.nodelay=true "$failover/FailoverStub.java" "$port" "$delay_ms" /dev/null "s$((i + 1))"
    started+=("$dir/stub-$i.pid|FailoverStub.java $port")
  done
}

stop_stubs() {
  local i
  for i in 0 1 2; do daemon_stop "stub" "$1/stub-$i.pid" "FailoverStub.java ${stub_ports[$i]}" 10 >/dev/null || true; done
}

# The two configurations of each proxy: A (servers 1 and 2, read timeout 10 s), B (2 and 3, 9 s).
write_configs() {   # TARGET DIR
  local t=$1 dir=$2 variant first second timeout
  for variant in a b; do
    if [ $variant = a ]; then first=${stub_ports[0]} second=${stub_ports[1]} timeout=10; else first=${stub_ports[1]} second=${stub_ports[2]} timeout=9; fi
    case $t in
      kodiak) cat >"$dir/proxy-$variant.conf" <<CONF
proxy {
  listener { host = "127.0.0.1", port = ${PORT[kodiak]}, idle-timeout = 60s }
  upstreams.app { servers = [ "http://127.0.0.1:$first", "http://127.0.0.1:$second" ] }
  routes = [ { prefix = "/", upstream = "http://app/" } ]
  upstream { response-timeout = ${timeout}s }
  admin { enabled = true, port = 9681 }
}
CONF
      ;;
      nginx) cat >"$dir/nginx-$variant.conf" <<CONF
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
  uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
  upstream app {
    server 127.0.0.1:$first;
    server 127.0.0.1:$second;
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${PORT[nginx]} backlog=1024;
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_read_timeout ${timeout}s;
    }
  }
}
CONF
      ;;
      haproxy) cat >"$dir/haproxy-$variant.cfg" <<CONF
global
  maxconn 8000
  nbthread 2
defaults
  mode http
  timeout connect 5s
  timeout client 60s
  timeout server ${timeout}s
  option http-keep-alive
frontend fe
  bind 127.0.0.1:${PORT[haproxy]}
  default_backend be
backend be
  server s1 127.0.0.1:$first
  server s2 127.0.0.1:$second
CONF
      ;;
    esac
  done
}

start_proxy() {   # TARGET DIR
  local t=$1 dir=$2
  write_configs "$t" "$dir"
  case $t in
    kodiak)
      cp "$dir/proxy-a.conf" "$dir/proxy.conf"
      PROXY_CONF=$dir/proxy.conf PROXY_BASE=$dir "$root/bin/proxy.sh" start >>"$dir/console.log" 2>&1 \
        || { tail -n 20 "$dir/console.log" >&2; return 1; }
      started+=("$dir/proxy.pid|-Dkodiak.daemon=proxy:$dir ")
      ;;
    nginx)
      mkdir -p "$dir/logs" "$dir/tmp"
      cp "$dir/nginx-a.conf" "$dir/nginx.conf"
      daemon_start nginx "$dir/daemon.pid" "$dir/console.log" "-p $dir/" 127.0.0.1 "${PORT[nginx]}" 30 -- \
        "$nginx_bin" -p "$dir/" -c "$dir/nginx.conf" -e "$dir/logs/error.log" -g "daemon off;"
      started+=("$dir/daemon.pid|-p $dir/")
      ;;
    haproxy)
      cp "$dir/haproxy-a.cfg" "$dir/haproxy.cfg"
      daemon_start haproxy "$dir/daemon.pid" "$dir/console.log" "-f $dir/haproxy.cfg" 127.0.0.1 "${PORT[haproxy]}" 30 -- \
        "$haproxy_bin" -W -db -f "$dir/haproxy.cfg"
      started+=("$dir/daemon.pid|-f $dir/haproxy.cfg")
      ;;
  esac
}

proxy_pid() {   # TARGET DIR: the process bin/proxy.sh or daemon_start started (its session holds the rest)
  case $1 in
    kodiak) daemon_pid "$2/proxy.pid" "-Dkodiak.daemon=proxy:$2 " ;;
    nginx) daemon_pid "$2/daemon.pid" "-p $2/" ;;
    haproxy) daemon_pid "$2/daemon.pid" "-f $2/haproxy.cfg" ;;
  esac
}

# Reloads TARGET to VARIANT (a or b); the command's own exit status is recorded.
reload_proxy() {   # TARGET DIR VARIANT
  local t=$1 dir=$2 v=$3 pid
  case $t in
    kodiak) PROXY_BASE=$dir "$root/bin/proxy.sh" reload -c "$dir/proxy-$v.conf" >>"$dir/reloads.log" 2>&1 ;;
    nginx) cp "$dir/nginx-$v.conf" "$dir/nginx.conf" && "$nginx_bin" -p "$dir/" -c "$dir/nginx.conf" -s reload >>"$dir/reloads.log" 2>&1 ;;
    haproxy) cp "$dir/haproxy-$v.cfg" "$dir/haproxy.cfg" && pid=$(proxy_pid haproxy "$dir") && kill -USR2 "$pid" ;;
  esac
}

stop_proxy() {   # TARGET DIR
  case $1 in
    kodiak) PROXY_BASE=$2 "$root/bin/proxy.sh" stop >>"$2/console.log" 2>&1 || true ;;
    nginx) daemon_stop nginx "$2/daemon.pid" "-p $2/" 20 >/dev/null || true ;;
    haproxy) daemon_stop haproxy "$2/daemon.pid" "-f $2/haproxy.cfg" 20 >/dev/null || true ;;
  esac
}

# Resident memory of every process in the proxy's session (nginx's and HAProxy's workers, old
# ones still finishing included), in KiB.
session_rss() {   # PID
  ps -o rss= -s "$1" | awk '{ s += $1 } END { print s + 0 }'
}

# Kodiak's heap in use right after a full collection, in KiB (empty for the others: null in the results).
heap_after_gc() {   # TARGET PID
  [ "$1" = kodiak ] || return 0
  "$jcmd" "$2" GC.run >/dev/null 2>&1 || true
  "$jcmd" "$2" GC.heap_info 2>/dev/null | awk '/used [0-9]+K/ { for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K.*/, "", v); s += v } } /Metaspace/ { exit } END { print s + 0 }'
}

load() {   # PORT SECONDS OUT PREFIX
  timeout $(($2 + 30)) "$java17" -Xmx512m "$failover/FailoverLoad.java" "$1" "$connections" "$2" "$3" "$4"
}

nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
haproxy_bin=$(command -v haproxy || echo /usr/sbin/haproxy)
if [[ ,$targets, == *,kodiak,* ]]; then kodiak_build_if_stale "$root" "$out/logs/build.log" || exit 1; fi
# ---- what one run measured: two rows of reload.tsv ------------------------------------------------
tsv=$out/reload.tsv
printf 'target\tscenario\trepetition\t%s\treloads\tfailed_reloads\treload_command_ms\trss_before_kib\trss_after_kib\theap_before_kib\theap_after_kib\n' \
  "$(tr ' ' '\t' <<<"$REQUEST_STATS_FIELDS")" >"$tsv"
median_of() {   # FILE of numbers, one a line
  sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR) print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# The baseline; then the run with the reloads: its failures over the whole run (a request that meets
# a connection an old worker closed fails whenever it comes), its latency over the requests that
# started between the first reload and a second after the last.
measured() {   # TARGET ROUND DIR FIRST_RELOAD_MS LAST_RELOAD_MS
  printf '%s\tbaseline\t%s\t%s\t\t\t\t\t\t\t\n' "$1" "$2" "$(request_stats "$3/baseline.tsv")"
  printf '%s\treloads\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" \
    "$(request_stats "$3/requests.tsv" 0 9999999999999 requests ok ko ko_get ko_post errors rps)" \
    "$(request_stats "$3/requests.tsv" "$4" "$(($5 + 1000))" p50_ms p95_ms p99_ms mean_ms max_ms)" \
    "$reloads" "$failed_reloads" "$(median_of "$3/reload-times")" "$rss_before" "$rss_after" "$heap_before" "$heap_after"
}

bench_begin "$out"
run_seconds=$((reloads + 4))
log "targets $targets; $connections connections; warm-up ${warmup}s, baseline ${baseline}s, then $reloads reloads 1 s apart in a ${run_seconds}s run; load average $BENCH_LOAD_BEFORE"
for round in $(seq 1 "$rounds"); do
order=()
for k in "${!target_list[@]}"; do order+=("${target_list[$(((k + round - 1) % ${#target_list[@]}))]}"); done
for t in "${order[@]}"; do
  dir=$out/r$round/$t
  mkdir -p "$dir"
  log "round $round, $t: start the servers and the proxy"
  start_stubs "$dir"
  for port in "${stub_ports[@]}"; do load "$port" "$stub_warmup" "$dir/stub-$port-warmup.tsv" stub; done
  start_proxy "$t" "$dir"
  pid=$(proxy_pid "$t" "$dir")
  log "round $round, $t: warm-up ${warmup}s, baseline ${baseline}s"
  load "${PORT[$t]}" "$warmup" "$dir/warmup.tsv" warm
  load "${PORT[$t]}" "$baseline" "$dir/baseline.tsv" base
  rss_before=$(session_rss "$pid")
  heap_before=$(heap_after_gc "$t" "$pid")
  log "round $round, $t: $reloads reloads under load"
  load "${PORT[$t]}" "$run_seconds" "$dir/requests.tsv" run &
  load_pid=$!
  sleep 2
  first=$(now_ms)
  : >"$dir/reload-times"
  failed_reloads=0
  for i in $(seq 1 "$reloads"); do
    tick=$(now_ms)
    variant=$([ $((i % 2)) = 1 ] && echo b || echo a)
    if ! reload_proxy "$t" "$dir" "$variant"; then failed_reloads=$((failed_reloads + 1)); fi
    done_at=$(now_ms)
    echo "$((done_at - tick))" >>"$dir/reload-times"
    # Once a second, whatever the reload took.
    rest=$((1000 - (done_at - tick)))
    if ((rest > 0)); then sleep "$(printf '0.%03d' "$rest")"; fi
  done
  last=$(now_ms)
  wait "$load_pid"
  load_pid=""
  sleep 3
  rss_after=$(session_rss "$pid")
  heap_after=$(heap_after_gc "$t" "$pid")
  log "round $round, $t: RSS ${rss_before} -> ${rss_after} KiB; $failed_reloads reload commands failed"
  stop_proxy "$t" "$dir"
  stop_stubs "$dir"
  measured "$t" "$round" "$dir" "$first" "$last" >>"$tsv"
  bench_sample_load
done
done

tools=(java="$java17")
[[ ,$targets, == *,nginx,* ]] && tools+=(nginx="$nginx_bin")
[[ ,$targets, == *,haproxy,* ]] && tools+=(haproxy="$haproxy_bin")
mapfile -t versions < <(version_args "${tools[@]}")
bench_report reload "$out" "bin/bench.sh reload $args" --rows "$tsv" "${versions[@]}" \
  --param rounds="$rounds" --param reloads="$reloads" --param connections="$connections" --param targets="$targets" \
  --param timeline="servers warmed ${stub_warmup} s each; proxy warm-up ${warmup} s, baseline ${baseline} s, then ${run_seconds} s with a reload a second from 2 s on"
log "report: $out/report.md"
