#!/usr/bin/env bash
# bin/bench.sh scaleout [--quick] [--rounds N] [--connections N] [--seconds N]
#
# Kodiak scaled out behind an L4 balancer, on loopback: HAProxy in TCP mode (127.0.0.1:9501) in
# front of two Kodiak instances (9502 and 9503, admin 9512 and 9513) with the same configuration,
# their health taken from Kodiak's /health (HAProxy's httpchk on the admin port), all in front of
# one server (bench/failover/FailoverStub.java, 10 ms per request, 127.0.0.1:9511). The same load
# (bench/failover/FailoverLoad.java, CONNECTIONS keep-alive clients, half GET, half POST) runs
# against three targets in turn, each for SECONDS after a warm-up:
#   one       one Kodiak, direct
#   balanced  HAProxy TCP -> both instances
#   one-of-2  HAProxy TCP -> the same two instances, the second one's health check failing (as
#             while it drains: its /health answers 503): the balancer sends everything to the first
# Reported (report.md, report.html, results.json in target/bench/scaleout-<timestamp>/, rendered by
# bench/report from bench/scaleout/report.json and the runs' rows in scaleout.tsv): requests per
# second, failed requests, p50/p99, and how the requests split between the instances. On this 2-core
# machine every process shares the same cores, so the figures show the balancer's cost and the
# split, not the capacity two machines would add (docs/scale-out.md).
# --rounds N (default 3), targets alternated within each round; --quick: one round of 10 s.
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
connections=32 rounds=3 seconds=20 warmup=15
usage() { echo "usage: bin/bench.sh scaleout [--quick] [--rounds N] [--connections N] [--seconds N]" >&2; }
while [ $# -gt 0 ]; do
  case $1 in
    --quick) rounds=1 seconds=10 warmup=5; shift ;;
    --rounds) rounds=${2:-}; shift 2 ;;
    --connections) connections=${2:-}; shift 2 ;;
    --seconds) seconds=${2:-}; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage; exit 2 ;;
  esac
done
for n in "$connections" "$rounds" "$seconds"; do
  [[ $n =~ ^[1-9][0-9]{0,3}$ ]] || { echo "scaleout: --rounds, --connections and --seconds take whole numbers from 1 to 9999" >&2; exit 2; }
done

java17=$(daemon_java 17) || { echo "scaleout: Java 17 not found" >&2; exit 1; }
ensure_packages scaleout haproxy
haproxy_bin=$(command -v haproxy || echo /usr/sbin/haproxy)

stamp=$(date -u +%Y%m%d-%H%M%S)
out=$root/target/bench/scaleout-$stamp
mkdir -p "$out/logs"
log() { echo "[scaleout $(date -u +%H:%M:%S)] $*"; }

stub_port=9511 lb_port=9501
kodiak_ports=(9502 9503) admin_ports=(9512 9513)

started=()   # "pidfile|marker"
cleanup() {
  local entry pidfile marker pid
  for entry in ${started[@]+"${started[@]}"}; do
    pidfile=${entry%%|*} marker=${entry#*|}
    if pid=$(daemon_pid "$pidfile" "$marker"); then kill -TERM "$pid" 2>/dev/null || true; fi
  done
}
trap cleanup EXIT INT TERM

kodiak_build_if_stale "$root" "$out/logs/build.log" || exit 1

daemon_start "stub $stub_port" "$out/stub.pid" "$out/logs/stub.console.log" "FailoverStub.java $stub_port" 127.0.0.1 "$stub_port" 60 -- \
  "$java17" -Xmx256m -Dsun.net.httpserver.nodelay=true "$failover/FailoverStub.java" "$stub_port" 10 /dev/null stub
started+=("$out/stub.pid|FailoverStub.java $stub_port")

# The same file for both instances but for their ports (-D overrides, as a fleet would set them).
cat >"$out/proxy.conf" <<CONF
proxy {
  listener { host = "127.0.0.1", port = ${kodiak_ports[0]} }
  routes = [ { prefix = "/", upstream = "http://127.0.0.1:$stub_port/" } ]
  admin { enabled = true, port = ${admin_ports[0]} }
}
CONF
for i in 0 1; do
  base=$out/kodiak-$i
  mkdir -p "$base"
  PROXY_CONF=$out/proxy.conf PROXY_BASE=$base \
    JAVA_OPTS="-Dproxy.listener.port=${kodiak_ports[$i]} -Dproxy.admin.port=${admin_ports[$i]}" \
    "$root/bin/proxy.sh" start >>"$out/logs/kodiak-$i.log" 2>&1 || { tail -n 20 "$out/logs/kodiak-$i.log" >&2; exit 1; }
  started+=("$base/proxy.pid|-Dkodiak.daemon=proxy:$base ")
done

# HAProxy, TCP mode: it sees connections, not requests; health from each instance's /health.
# "balanced" and "one-of-2" are two frontends; in the second, instance 2's check goes to a port
# nothing listens on, so it fails as a draining instance's /health (503) does.
cat >"$out/haproxy.cfg" <<CONF
global
  maxconn 8000
  nbthread 2
defaults
  mode tcp
  timeout connect 5s
  timeout client 60s
  timeout server 60s
frontend balanced
  bind 127.0.0.1:$lb_port
  default_backend both
frontend one-of-2
  bind 127.0.0.1:$((lb_port + 20))
  default_backend first-only
backend both
  balance leastconn
  option httpchk GET /health
  http-check expect status 200
  server k1 127.0.0.1:${kodiak_ports[0]} check port ${admin_ports[0]} inter 500ms fall 2 rise 2
  server k2 127.0.0.1:${kodiak_ports[1]} check port ${admin_ports[1]} inter 500ms fall 2 rise 2
backend first-only
  balance leastconn
  option httpchk GET /health
  http-check expect status 200
  server k1 127.0.0.1:${kodiak_ports[0]} check port ${admin_ports[0]} inter 500ms fall 2 rise 2
  server k2 127.0.0.1:${kodiak_ports[1]} check port $((admin_ports[1] + 100)) inter 500ms fall 2 rise 2
CONF
daemon_start haproxy "$out/haproxy.pid" "$out/logs/haproxy.console.log" "-f $out/haproxy.cfg" 127.0.0.1 "$lb_port" 30 -- \
  "$haproxy_bin" -db -f "$out/haproxy.cfg"
started+=("$out/haproxy.pid|-f $out/haproxy.cfg")

declare -A TARGET_PORT=([one]=${kodiak_ports[0]} [balanced]=$lb_port [one-of-2]=$((lb_port + 20)))
targets=(one balanced one-of-2)

requests_of() {   # INSTANCE: requests since start, from its /metrics (bash's /dev/tcp: no curl needed)
  local port=${admin_ports[$1]}
  # shellcheck disable=SC2016 # expanded by the inner bash
  timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0"; printf "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n" >&3; cat <&3' "$port" \
    | awk '/^kodiak_requests_total\{/ { s += $NF } END { printf "%d", s }'
}

load() {   # PORT SECONDS OUT PREFIX
  timeout $(($2 + 30)) "$java17" -Xmx512m "$failover/FailoverLoad.java" "$1" "$connections" "$2" "$3" "$4"
}

tsv=$out/scaleout.tsv
printf 'target\tscenario\trepetition\t%s\tinstance1\tinstance2\n' "$(tr ' ' '\t' <<<"$REQUEST_STATS_FIELDS")" >"$tsv"
bench_begin "$out"
log "targets ${targets[*]}; $connections connections; warm-up ${warmup}s, ${seconds}s per run, $rounds rounds; load average $BENCH_LOAD_BEFORE"
load "$lb_port" "$warmup" "$out/warmup.tsv" warm
for round in $(seq 1 "$rounds"); do
  for k in "${!targets[@]}"; do
    t=${targets[$(((k + round - 1) % ${#targets[@]}))]}
    dir=$out/r$round/$t
    mkdir -p "$dir"
    before0=$(requests_of 0) before1=$(requests_of 1)
    load "${TARGET_PORT[$t]}" "$seconds" "$dir/requests.tsv" "$t"
    after0=$(requests_of 0) after1=$(requests_of 1)
    printf '%s\tloopback\t%s\t%s\t%s\t%s\n' "$t" "$round" "$(request_stats "$dir/requests.tsv")" \
      $((after0 - before0)) $((after1 - before1)) >>"$tsv"
    log "round $round, $t: instance 1 took $((after0 - before0)), instance 2 $((after1 - before1)) requests"
    bench_sample_load
  done
done

mapfile -t versions < <(version_args java="$java17" haproxy="$haproxy_bin")
bench_report scaleout "$out" "bin/bench.sh scaleout $args" --rows "$tsv" "${versions[@]}" \
  --param rounds="$rounds" --param connections="$connections" --param seconds="$seconds" --param warmup_s="$warmup"
log "report: $out/report.md"
