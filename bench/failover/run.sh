#!/usr/bin/env bash
# bin/bench.sh failover [--quick] [--rounds N] [--targets kodiak,nginx,haproxy] [--connections N]
#
# Failover, side by side: each proxy (one at a time) in front of the same three servers
# (FailoverStub.java, 20 ms per request, on 127.0.0.1:9711-9713), loaded by FailoverLoad.java with
# CONNECTIONS keep-alive clients sending half GET, half POST, each request with a unique
# X-Request-Id. After a warm-up, a run of 60 s: 20 s in, the server on 9712 is killed (kill -9), and
# 20 s later it is started again. Reported per proxy (report.md, report.html, results.json in
# target/bench/failover-<timestamp>/): failed requests, GET and POST apart; requests that reached a
# server twice (the ids in the servers' logs); when the proxy took the dead server out (its own log
# line) and when the restarted server got a request again; p99 overall and while the server was
# down. --rounds N (default 3) repeats the whole sequence, the targets in turn within each round;
# the report gives each figure's median and range. --quick: one round, 5 s warm-up, kill at 8 s,
# restart at 16 s, 24 s run.
#
# The proxies: Kodiak as shipped by bin/proxy.sh, its group with passive health (max-fails 1,
# fail-timeout 10s), active checks (1s, fall 2, rise 2) and retries on connect-failure, reset,
# 502-504; nginx with max_fails=1 fail_timeout=10s and proxy_next_upstream error timeout http_502
# http_503 http_504 (nginx OSS has no active checks); HAProxy with check inter 1s fall 2 rise 2,
# option redispatch, retries 2 and retry-on conn-failure empty-response 502 503 504.
# Bounded: every load run stops by itself; everything started is stopped by pid, also on errors.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
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
connections=32
rounds=3
warmup=15 kill_at=20 restart_at=40 duration=60
delay_ms=20
while [ $# -gt 0 ]; do
  case $1 in
    --quick) warmup=5 kill_at=8 restart_at=16 duration=24 rounds=1; shift ;;
    --rounds) rounds=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bin/bench.sh failover [--quick] [--rounds N] [--targets kodiak,nginx,haproxy] [--connections N]" >&2; exit 2 ;;
  esac
done
[[ $connections =~ ^[1-9][0-9]*$ ]] || { echo "failover: --connections takes a positive whole number" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "failover: --rounds takes a whole number from 1 to 99" >&2; exit 2; }
IFS=, read -r -a target_list <<<"$targets"
for t in "${target_list[@]}"; do
  case $t in kodiak|nginx|haproxy) ;; *) echo "failover: unknown target '$t' (kodiak, nginx, haproxy)" >&2; exit 2 ;; esac
done

java17=$(daemon_java 17) || { echo "failover: Java 17 not found" >&2; exit 1; }
needs=()
[[ ,$targets, == *,nginx,* ]] && needs+=(nginx)
[[ ,$targets, == *,haproxy,* ]] && needs+=(haproxy)
[ ${#needs[@]} -eq 0 ] || ensure_packages failover "${needs[@]}"

stamp=$(date -u +%Y%m%d-%H%M%S)
out=$root/target/bench/failover-$stamp
mkdir -p "$out/logs"
log() { echo "[failover $(date -u +%H:%M:%S)] $*"; }
now_ms() { date +%s%3N; }

declare -A PORT=([kodiak]=9701 [nginx]=9702 [haproxy]=9703)
stub_ports=(9711 9712 9713)
victim=1   # index into stub_ports: 9712

# ---- everything started is recorded here and stopped by pid on exit -----------------------------
started=()   # "pidfile marker"
cleanup() {
  local entry pidfile marker pid
  for entry in ${started[@]+"${started[@]}"}; do
    pidfile=${entry%%|*} marker=${entry#*|}
    if pid=$(daemon_pid "$pidfile" "$marker"); then kill -TERM "$pid" 2>/dev/null || true; fi
  done
  if [ -n "${load_pid:-}" ]; then kill -TERM "$load_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT INT TERM

start_stub() {   # DIR INDEX
  local dir=$1 i=$2 port=${stub_ports[$2]}
  daemon_start "stub $port" "$dir/stub-$i.pid" "$dir/stub-$i.console.log" "FailoverStub.java $port" 127.0.0.1 "$port" 60 -- \
    "$java17" -Xmx256m -Dsun.net.httpserver.nodelay=true "$here/FailoverStub.java" "$port" "$delay_ms" "$dir/stub-$i.log" "s$((i + 1))"
  started+=("$dir/stub-$i.pid|FailoverStub.java $port")
}

kill_stub() {   # DIR INDEX: kill -9, as a crash; sets killed to the time of the signal
  local pid
  pid=$(daemon_pid "$1/stub-$2.pid" "FailoverStub.java ${stub_ports[$2]}") || return 0
  killed=$(now_ms)
  kill -KILL "$pid"
  # Reaped here, so that bash does not report the killed job.
  wait "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
}

stop_stubs() {
  local i
  for i in 0 1 2; do daemon_stop "stub" "$1/stub-$i.pid" "FailoverStub.java ${stub_ports[$i]}" 10 >/dev/null || true; done
}

start_proxy() {   # TARGET DIR
  local t=$1 dir=$2 servers
  case $t in
    kodiak)
      servers=$(printf '"http://127.0.0.1:%s", ' "${stub_ports[@]}")
      cat >"$dir/proxy.conf" <<CONF
proxy {
  listener { host = "127.0.0.1", port = ${PORT[kodiak]}, idle-timeout = 60s }
  upstreams.failover {
    servers = [ ${servers%, } ]
    passive { max-fails = 1, fail-timeout = 10s }
    health-check { path = "/health", interval = 1s, timeout = 500ms, rise = 2, fall = 2 }
    retry { attempts = 3, on = ["connect-failure", "reset", "502", "503", "504"], budget = 20% }
  }
  routes = [ { prefix = "/", upstream = "http://failover/" } ]
  upstream { response-timeout = 10s }
  admin { enabled = true, port = 9781 }
}
CONF
      PROXY_CONF=$dir/proxy.conf PROXY_BASE=$dir "$root/bin/proxy.sh" start >>"$dir/console.log" 2>&1 \
        || { tail -n 20 "$dir/console.log" >&2; return 1; }
      started+=("$dir/proxy.pid|-Dkodiak.daemon=proxy:$dir ")
      ;;
    nginx)
      mkdir -p "$dir/logs" "$dir/tmp"
      cat >"$dir/nginx.conf" <<CONF
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
  uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
  upstream failover {
    server 127.0.0.1:${stub_ports[0]} max_fails=1 fail_timeout=10s;
    server 127.0.0.1:${stub_ports[1]} max_fails=1 fail_timeout=10s;
    server 127.0.0.1:${stub_ports[2]} max_fails=1 fail_timeout=10s;
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${PORT[nginx]} backlog=1024;
    location / {
      proxy_pass http://failover;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_next_upstream error timeout http_502 http_503 http_504;
      proxy_next_upstream_tries 3;
      proxy_read_timeout 10s;
    }
  }
}
CONF
      local nginx_bin
      nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
      daemon_start nginx "$dir/daemon.pid" "$dir/console.log" "-p $dir/" 127.0.0.1 "${PORT[nginx]}" 30 -- \
        "$nginx_bin" -p "$dir/" -c "$dir/nginx.conf" -e "$dir/logs/error.log" -g "daemon off;"
      started+=("$dir/daemon.pid|-p $dir/")
      ;;
    haproxy)
      cat >"$dir/haproxy.cfg" <<CONF
global
  maxconn 8000
  nbthread 2
  log stdout format rfc5424 local0 info
defaults
  mode http
  log global
  option dontlog-normal
  timeout connect 5s
  timeout client 60s
  timeout server 10s
  option http-keep-alive
  option redispatch
  retries 2
  retry-on conn-failure empty-response 502 503 504
frontend fe
  bind 127.0.0.1:${PORT[haproxy]}
  default_backend be
backend be
  option httpchk GET /health
  default-server check inter 1s fall 2 rise 2
  server s1 127.0.0.1:${stub_ports[0]}
  server s2 127.0.0.1:${stub_ports[1]}
  server s3 127.0.0.1:${stub_ports[2]}
CONF
      local haproxy_bin
      haproxy_bin=$(command -v haproxy || echo /usr/sbin/haproxy)
      daemon_start haproxy "$dir/daemon.pid" "$dir/console.log" "-f $dir/haproxy.cfg" 127.0.0.1 "${PORT[haproxy]}" 30 -- \
        "$haproxy_bin" -db -f "$dir/haproxy.cfg"
      started+=("$dir/daemon.pid|-f $dir/haproxy.cfg")
      ;;
  esac
}

stop_proxy() {   # TARGET DIR
  case $1 in
    kodiak) PROXY_CONF=$2/proxy.conf PROXY_BASE=$2 "$root/bin/proxy.sh" stop >>"$2/console.log" 2>&1 || true ;;
    nginx) daemon_stop nginx "$2/daemon.pid" "-p $2/" 20 >/dev/null || true ;;
    haproxy) daemon_stop haproxy "$2/daemon.pid" "-f $2/haproxy.cfg" 20 >/dev/null || true ;;
  esac
}

load() {   # PORT SECONDS OUT PREFIX
  timeout $(($2 + 30)) "$java17" -Xmx512m "$here/FailoverLoad.java" "$1" "$connections" "$2" "$3" "$4"
}

# ---- what one run measured: a row of failover.tsv --------------------------------------------------
# Requests delivered more than once: ids of the run (run-*) that more than one server logged, or one
# server twice. Prints "GET POST".
delivered_twice() {   # DIR
  cat "$1"/stub-[0-2].log | awk '$3 ~ /^run-/ { n[$3]++; method[$3] = $2 }
    END { for (id in n) if (n[id] > 1) twice[method[id]]++; print twice["GET"] + 0, twice["POST"] + 0 }'
}

# Milliseconds from the restart to the first request of the run the restarted server logged; empty
# when it got none.
used_again_after() {   # DIR RESTARTED_MS
  awk -v at="$2" '$3 ~ /^run-/ && $1 >= at && (best == "" || $1 - at < best) { best = $1 - at } END { print best }' \
    "$1/stub-$victim.log"
}

# When the proxy's own log says it took the dead server out, epoch ms per line (as each logs it;
# nginx in whole seconds).
out_lines() {   # TARGET DIR
  local port=${stub_ports[$victim]}
  case $1 in
    kodiak) grep -E "server 127\.0\.0\.1:$port (ejected|is DOWN)" "$2/logs/kodiak.log" | cut -d' ' -f1-2 ;;
    nginx) grep -E "upstream server temporarily disabled.*127\.0\.0\.1:$port" "$2/logs/error.log" | cut -d' ' -f1-2 ;;
    haproxy) grep "Server be/s$((victim + 1)) is DOWN" "$2/console.log" | awk '{ print $2 }' ;;
  esac 2>/dev/null | date -f - +%s%3N || true
}

# Milliseconds from the kill to the first of those lines; empty when the proxy logged none. A
# nginx line in the kill's own second counts as at the kill.
out_after() {   # TARGET DIR KILLED_MS
  local slack=0
  [ "$1" = nginx ] && slack=1000
  out_lines "$1" "$2" | awk -v killed="$3" -v slack="$slack" \
    '$1 + slack >= killed { d = $1 > killed ? $1 - killed : 0; if (best == "" || d < best) best = d } END { print best }'
}

tsv=$out/failover.tsv
printf 'target\tscenario\trepetition\t%s\tp99_down_ms\tget_twice\tpost_twice\tout_after_ms\tused_again_after_ms\n' \
  "$(tr ' ' '\t' <<<"$REQUEST_STATS_FIELDS")" >"$tsv"
measured() {   # TARGET ROUND DIR KILLED_MS RESTARTED_MS: one line of failover.tsv
  local twice
  read -r -a twice <<<"$(delivered_twice "$3")"
  printf '%s\tfailover\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$(request_stats "$3/requests.tsv")" \
    "$(request_stats "$3/requests.tsv" "$4" "$(($5 - 1))" p99_ms)" "${twice[0]}" "${twice[1]}" \
    "$(out_after "$1" "$3" "$4")" "$(used_again_after "$3" "$5")"
}

if [[ ,$targets, == *,kodiak,* ]]; then kodiak_build_if_stale "$root" "$out/logs/build.log" || exit 1; fi
bench_begin "$out"
log "targets $targets; $connections connections; warm-up ${warmup}s; run ${duration}s, kill at ${kill_at}s, restart at ${restart_at}s; load average $BENCH_LOAD_BEFORE"
for round in $(seq 1 "$rounds"); do
# Targets in turn, starting one further each round, so none always runs first.
order=()
for k in "${!target_list[@]}"; do order+=("${target_list[$(((k + round - 1) % ${#target_list[@]}))]}"); done
for t in "${order[@]}"; do
  dir=$out/r$round/$t
  mkdir -p "$dir"
  log "round $round, $t: start the three servers and the proxy"
  for i in 0 1 2; do start_stub "$dir" "$i"; done
  start_proxy "$t" "$dir"
  log "round $round, $t: warm-up ${warmup}s"
  load "${PORT[$t]}" "$warmup" "$dir/warmup.tsv" warm
  log "round $round, $t: run ${duration}s"
  load "${PORT[$t]}" "$duration" "$dir/requests.tsv" run &
  load_pid=$!
  sleep "$kill_at"
  kill_stub "$dir" "$victim"
  log "round $round, $t: killed the server on ${stub_ports[$victim]}"
  sleep $((restart_at - kill_at))
  start_stub "$dir" "$victim"
  restarted=$(now_ms)
  log "round $round, $t: restarted it"
  wait "$load_pid"
  load_pid=""
  stop_proxy "$t" "$dir"
  stop_stubs "$dir"
  measured "$t" "$round" "$dir" "$killed" "$restarted" >>"$tsv"
  bench_sample_load
done
done

tools=(java="$java17")
[[ ,$targets, == *,nginx,* ]] && tools+=(nginx="$(command -v nginx || echo /usr/sbin/nginx)")
[[ ,$targets, == *,haproxy,* ]] && tools+=(haproxy="$(command -v haproxy || echo /usr/sbin/haproxy)")
mapfile -t versions < <(version_args "${tools[@]}")
bench_report failover "$out" "bin/bench.sh failover $args" --rows "$tsv" "${versions[@]}" \
  --param rounds="$rounds" --param connections="$connections" --param targets="$targets" \
  --param timeline="warm-up ${warmup} s, then a ${duration} s run: kill -9 at ${kill_at} s, restart at ${restart_at} s"
log "report: $out/report.md"
