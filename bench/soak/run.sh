#!/usr/bin/env bash
# bin/bench.sh soak [--minutes N] [--quick] [--check] [--rate auto|N]
#
# A long run of Kodiak as shipped (bin/proxy.sh start, admin on) under a steady mixed load, to see
# whether anything grows or fails over time. Behind it: a group of three HTTP/1.1 servers
# (bench/soak/SoakBackend.java http, 127.0.0.1:19211-19213: sized and chunked bodies up to 1 MiB,
# POSTs echoed), a WebSocket echo server (19221, route /ws/) and a gRPC server (bench/h2/grpc/GrpcEcho,
# h2c on 19231, route /bench.Echo/); Kodiak listens on 19201 (plain: HTTP/1.1, h2c) and 19202 (TLS).
# The load (bench/soak/SoakLoad.java, one JVM) mixes keep-alive and new-connection requests, GET and
# POST, bodies from 100 B to 1 MiB sized and chunked, slow readers and slow senders, TLS (HTTP/1.1
# and h2 by ALPN), gRPC unary calls and WebSocket sessions. It first runs unpaced for a calibration
# (40 s; 20 s when shorter than 10 minutes, not recorded: its first half warms the JIT and connections,
# its second half is measured), then paces each
# kind at half of what it reached (--rate N: N requests/s split by fixed weights instead).
# During the run: a reload every minute (bin/proxy.sh reload, alternating two files that change the
# group's health and pool settings, so the group is rebuilt and its pools replaced), and the group's
# server on 19212 killed (kill -9) at
# a third of every five minutes and started again 30 s later. Every minute (and at the start and the
# end) a sample of Kodiak: heap after a full collection (jcmd), resident memory, open files, threads,
# upstream pool connections (open, idle, leased), h2 upstream connections, pooled buffers in use and
# their bytes (kodiak_buffers_*, empty in builds without them), requests by outcome so far.
# Runs shorter than 10 minutes keep the shape: a sample every 1/8 of the run (at least 10 s), a
# reload every quarter, a kill at a third of each half, the restart a quarter of a half later.
# Every failed request is classified (bench/soak/SoakLoad.java classify): explained only when it went
# to the group, was in flight at a kill, and Kodiak's access log names the killed server for it.
# Report (target/bench/soak-<timestamp>/: report.md, report.html, results.json, requests.tsv,
# failures.tsv, samples.tsv, events.tsv, kodiak/logs/): the series over time, each one's least-squares
# slope in % of its mean per hour over the last 50 minutes (the whole run when shorter, said so), the
# outcomes per kind, the targets judged. --quick: --minutes 2. --check: exit 1 when a failure is not
# explained by the kills, or Kodiak exited or stopped answering /health (for CI).
# Bounded: the load stops by itself, every wait has a timeout, everything started is stopped by pid,
# also on errors and interrupts.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/common.sh
. "$root/bench/lib/common.sh"
# shellcheck source=../lib/process-sample.sh
. "$root/bench/lib/process-sample.sh"

usage() { echo "usage: bin/bench.sh soak [--minutes N] [--quick] [--check] [--rate auto|N]" >&2; }
args="$*"
minutes=60 check=false rate=auto
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) minutes=${2:-}; shift 2 ;;
    --quick) minutes=2; shift ;;
    --check) check=true; shift ;;
    --rate) rate=${2:-}; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) usage; exit 2 ;;
  esac
done
[[ $minutes =~ ^[1-9][0-9]{0,3}$ ]] || { echo "soak: --minutes takes a whole number from 1 to 9999" >&2; exit 2; }
[[ $rate == auto || $rate =~ ^[1-9][0-9]*$ ]] || { echo "soak: --rate takes auto or a positive whole number" >&2; exit 2; }

seconds=$((minutes * 60))
if [ "$minutes" -ge 10 ]; then
  calibrate=40 sample_every=60 reload_every=60 kill_period=300 down_for=30
else
  calibrate=20 sample_every=$((seconds / 8 < 10 ? 10 : seconds / 8)) reload_every=$((seconds / 4)) kill_period=$((seconds / 2))
  down_for=$((kill_period / 4))
fi
kill_offset=$((kill_period / 3))

java17=$(daemon_java 17) || { echo "soak: Java 17 not found" >&2; exit 1; }
jcmd=$(dirname "$java17")/jcmd javac=$(dirname "$java17")/javac
[ -x "$jcmd" ] && [ -x "$javac" ] || { echo "soak: a full JDK 17 (jcmd, javac) is needed beside $java17" >&2; exit 1; }
ensure_packages soak curl openssl || exit 1

stamp=$(date -u +%Y%m%d-%H%M%S)
out=$root/target/bench/soak-$stamp
mkdir -p "$out/logs" "$out/build" "$out/tls" "$out/kodiak"
log() { echo "[soak $(date -u +%H:%M:%S)] $*"; }
now_ms() { date +%s%3N; }
event() { printf '%s\t%s\t%s\n' "$(now_ms)" "$1" "${2:-}" >>"$out/events.tsv"; }

# SOAK_PORT_BASE (default 19200) moves every port together, so that two soaks can run at once.
base=${SOAK_PORT_BASE:-19200}
port=$((base + 1)) tls_port=$((base + 2)) admin_port=$((base + 81)) ws_port=$((base + 21)) grpc_port=$((base + 31))
http_ports=($((base + 11)) $((base + 12)) $((base + 13)))
victim=1   # index into http_ports: the server killed and restarted

# ---- everything started is recorded here and stopped by pid on exit -----------------------------
started=()   # "pidfile|marker"
load_pid=""
cleanup() {
  local entry pid
  if [ -n "$load_pid" ]; then kill -TERM "$load_pid" 2>/dev/null || true; fi
  if pid=$(daemon_pid "$out/kodiak/proxy.pid" "-Dkodiak.daemon=proxy:$out/kodiak "); then
    PROXY_BASE=$out/kodiak timeout 60 "$root/bin/proxy.sh" stop >>"$out/logs/proxy.sh.log" 2>&1 || kill -KILL "$pid" 2>/dev/null || true
  fi
  for entry in ${started[@]+"${started[@]}"}; do
    if pid=$(daemon_pid "${entry%%|*}" "${entry#*|}"); then kill -TERM "$pid" 2>/dev/null || true; fi
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- build: Kodiak as shipped, the load and backends against the project's test classpath ----------
kodiak_build_if_stale "$root" "$out/logs/build.log" || exit 1
log "build SoakLoad, SoakBackend, GrpcEcho (mvn dependency:build-classpath, javac; $out/build/build.log)"
timeout 600 mvn -B -q -f "$root/pom.xml" dependency:build-classpath -Dmdep.outputFile="$out/build/classpath.txt" \
  -Dmdep.includeScope=test >"$out/build/build.log" 2>&1 </dev/null || { tail -n 20 "$out/build/build.log" >&2; exit 1; }
cp_all=$out/build/classes:$(cat "$out/build/classpath.txt")
"$javac" -nowarn -d "$out/build/classes" -cp "$cp_all" "$here/SoakLoad.java" "$here/SoakBackend.java" \
  "$root/bench/h2/grpc/GrpcEcho.java" >>"$out/build/build.log" 2>&1 || { tail -n 20 "$out/build/build.log" >&2; exit 1; }
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$out/tls/server.key" -out "$out/tls/server.pem" 2>/dev/null

# ---- services -------------------------------------------------------------------------------------
quiet_logs="-Dlogback.configurationFile=$root/bench/throughput/logback.xml"
start_backend() {   # NAME PORT HEAP ARGS...: a JVM on the test classpath, until SIGTERM
  local name=$1 p=$2 heap=$3
  shift 3
  started+=("$out/logs/$name.pid|-Dsoak.backend=$name")
  daemon_start "$name" "$out/logs/$name.pid" "$out/logs/$name.log" "-Dsoak.backend=$name" 127.0.0.1 "$p" 60 -- \
    "$java17" "-Dsoak.backend=$name" "-Xmx$heap" -XX:+UseSerialGC "$quiet_logs" -cp "$cp_all" "$@"
}
start_http() { start_backend "http-${http_ports[$1]}" "${http_ports[$1]}" 256m SoakBackend http "${http_ports[$1]}"; }
for i in 0 1 2; do start_http "$i"; done
start_backend ws "$ws_port" 128m SoakBackend ws "$ws_port"
start_backend grpc "$grpc_port" 256m GrpcEcho server 127.0.0.1 "$grpc_port"

# Two configurations, reloaded in turn: they differ in the group's health settings (the group is
# rebuilt), its servers' pool size (Kodiak keeps a pool whose settings are unchanged, so this makes
# each reload open new pools and retire the old ones, draining their busy connections) and the
# response timeout.
# reload -c names another file than the one in service, which takes the admin token even from
# loopback; bin/proxy.sh reads it from the file the settings name.
printf 'soak-%s\n' "$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')" >"$out/kodiak/admin.token"
chmod 600 "$out/kodiak/admin.token"
for variant in a b; do
  if [ $variant = a ]; then fail_timeout=10s response_timeout=30s max_connections=1000; else fail_timeout=9s response_timeout=29s max_connections=999; fi
  cat >"$out/kodiak/proxy-$variant.conf" <<CONF
proxy {
  listener { host = "127.0.0.1", port = $port, idle-timeout = 60s }
  listeners = [ { port = $tls_port, tls { certificate = "$out/tls/server.pem", key = "$out/tls/server.key" } } ]
  upstreams {
    app {
      servers = [ "http://127.0.0.1:${http_ports[0]}", "http://127.0.0.1:${http_ports[1]}", "http://127.0.0.1:${http_ports[2]}" ]
      passive { max-fails = 1, fail-timeout = $fail_timeout }
      health-check { path = "/health", interval = 1s, timeout = 500ms, rise = 2, fall = 2 }
      retry { attempts = 3, on = ["connect-failure", "reset", "502", "503", "504"], budget = 20% }
      max-connections = $max_connections
    }
    grpc { protocol = "h2", servers = [ "http://127.0.0.1:$grpc_port" ] }
  }
  routes = [
    { prefix = "/", upstream = "http://app/" }
    { prefix = "/ws/", upstream = "http://127.0.0.1:$ws_port/" }
    { prefix = "/bench.Echo/", upstream = "http://grpc/bench.Echo/" }
  ]
  upstream { response-timeout = $response_timeout }
  # The request's id (X-Soak-Id) and every server tried: how a failure is tied to the killed server.
  access-log { format = "soak=\$http_x_soak_id \$status up=\$upstream_addr \$request_time_ms \$server_protocol" }
  admin { enabled = true, port = $admin_port, token-file = "$out/kodiak/admin.token" }
  shutdown { grace-period = 10s }
}
CONF
done
cp "$out/kodiak/proxy-a.conf" "$out/kodiak/proxy.conf"
PROXY_CONF=$out/kodiak/proxy.conf PROXY_BASE=$out/kodiak "$root/bin/proxy.sh" start >>"$out/logs/proxy.sh.log" 2>&1 \
  || { tail -n 20 "$out/logs/proxy.sh.log" >&2; exit 1; }
kodiak_pid=$(daemon_pid "$out/kodiak/proxy.pid" "-Dkodiak.daemon=proxy:$out/kodiak ") || { echo "soak: Kodiak's pid is unknown" >&2; exit 1; }

# ---- sampling -------------------------------------------------------------------------------------
samples=$out/samples.tsv
printf 'target\tscenario\tminute\trequests\tok\tko\trps\tp50_ms\tp95_ms\tp99_ms\tmean_ms\theap_mib\trss_mib\tfds\tthreads\tpool_open\tpool_idle\tpool_leased\th2_upstream_connections\tbuffers_in_use\tbuffers_pooled_mib\thealth_ms\tpart\n' >"$samples"
kodiak_gone="" health_misses=0 prev_requests=0 prev_t=0
mib() { [ -n "$1" ] && awk -v v="$1" -v d="$2" 'BEGIN { printf "%.2f", v / d }' || true; }
sample() {   # T_SECONDS [SCENARIO]
  local t=$1 scenario=${2:-sample} m="$out/logs/metrics.txt" heap rss fds threads counts requests ok ko rps="" health
  if ! kill -0 "$kodiak_pid" 2>/dev/null; then
    [ -n "$kodiak_gone" ] || { kodiak_gone="exited"; event kodiak-exited; log "Kodiak (pid $kodiak_pid) has exited"; }
    return 0
  fi
  # /health within 10 s, else Kodiak counts as hung at this sample (the metrics come from the same listener).
  local before; before=$(now_ms)
  if curl -sf -m 10 "http://127.0.0.1:$admin_port/health" >/dev/null && curl -sf -m 10 "http://127.0.0.1:$admin_port/metrics" >"$m"; then
    health=$(($(now_ms) - before))
  else
    health="" health_misses=$((health_misses + 1)); : >"$m"; event health-miss; log "Kodiak did not answer /health within 10 s"
  fi
  heap=$(heap_after_gc_kib "$jcmd" "$kodiak_pid") rss=$(rss_kib "$kodiak_pid") fds=$(fds_of "$kodiak_pid") threads=$(threads_of "$kodiak_pid")
  counts=$(awk '$1 == "all" { print $2, $3 }' "$out/counts.tsv" 2>/dev/null || true)
  ok=${counts% *} ko=${counts#* }
  [ -n "$counts" ] || ok=0 ko=0
  requests=$((ok + ko))
  [ "$t" -gt "$prev_t" ] && rps=$(awk -v r=$((requests - prev_requests)) -v s=$((t - prev_t)) 'BEGIN { printf "%.1f", r / s }')
  prev_requests=$requests prev_t=$t
  printf 'kodiak\t%s\t%s\t%s\t%s\t%s\t%s\t\t\t\t\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\tsamples\n' "$scenario" \
    "$(awk -v t="$t" 'BEGIN { printf "%.2f", t / 60 }')" "$requests" "$ok" "$ko" "$rps" "$(mib "$heap" 1024)" "$(mib "$rss" 1024)" \
    "$fds" "$threads" "$(prom_sum "$m" kodiak_upstream_pool_open)" "$(prom_sum "$m" kodiak_upstream_pool_idle)" \
    "$(prom_sum "$m" kodiak_upstream_pool_leased)" "$(prom_sum "$m" kodiak_http2_upstream_connections)" \
    "$(prom_sum "$m" kodiak_buffers_in_use)" "$(mib "$(prom_sum "$m" kodiak_buffers_pooled_bytes)" 1048576)" "$health" >>"$samples"
  event "$scenario" "minute $(awk -v t="$t" 'BEGIN { printf "%.2f", t / 60 }')"
}

victim_port=${http_ports[$victim]}
kill_victim() {
  local pid
  pid=$(daemon_pid "$out/logs/http-$victim_port.pid" "-Dsoak.backend=http-$victim_port") || { log "the server on $victim_port was not running"; return 0; }
  event kill "127.0.0.1:$victim_port pid $pid"
  kill -KILL "$pid"
  # Reaped here (it is this shell's child), so that bash does not report the killed job.
  wait "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
  event killed "127.0.0.1:$victim_port pid $pid"
  log "killed the server on $victim_port"
}
restart_victim() {
  rm -f "$out/logs/http-$victim_port.pid"
  start_http "$victim"
  event restart "127.0.0.1:$victim_port"
  log "restarted the server on $victim_port"
}
variant=a
reload() {
  local rc=0
  variant=$([ $variant = a ] && echo b || echo a)
  PROXY_BASE=$out/kodiak timeout 60 "$root/bin/proxy.sh" reload -c "$out/kodiak/proxy-$variant.conf" >>"$out/logs/reloads.log" 2>&1 || rc=$?
  event reload "proxy-$variant.conf rc $rc"
  [ $rc = 0 ] || log "reload to proxy-$variant.conf exited $rc (logs/reloads.log)"
}

# ---- the run --------------------------------------------------------------------------------------
bench_begin "$out"
log "$minutes min after a ${calibrate}s calibration; rate $rate; a sample every ${sample_every}s, a reload every ${reload_every}s, the server on $victim_port killed at ${kill_offset}s of every ${kill_period}s for ${down_for}s; $out"
: >"$out/events.tsv"
# SOAK_LOAD_OPTS: JVM options of the load, for taking a failure apart (-Dsoak.kinds=..., SoakLoad.java).
read -r -a load_opts <<<"${SOAK_LOAD_OPTS:-}"
timeout $((calibrate + seconds + 120)) "$java17" -Xmx1g -XX:+UseParallelGC "$quiet_logs" ${load_opts[@]+"${load_opts[@]}"} -cp "$cp_all" \
  SoakLoad run "$port" "$tls_port" "$out/tls/server.pem" "$calibrate" "$seconds" "$rate" "$out" >"$out/logs/load.log" 2>&1 &
load_pid=$!
sleep "$calibrate"
t0=$SECONDS
event start "recording"
sample 0
next_sample=$sample_every next_reload=$reload_every next_kill=$kill_offset next_restart=-1
while [ $((SECONDS - t0)) -lt "$seconds" ] && kill -0 "$load_pid" 2>/dev/null && [ -z "$kodiak_gone" ]; do
  t=$((SECONDS - t0))
  if [ "$t" -ge "$next_kill" ]; then kill_victim; next_restart=$((next_kill + down_for)) next_kill=$((next_kill + kill_period)); fi
  if [ "$next_restart" -ge 0 ] && [ "$t" -ge "$next_restart" ]; then restart_victim; next_restart=-1; fi
  if [ "$t" -ge "$next_reload" ]; then reload; next_reload=$((next_reload + reload_every)); fi
  if [ "$t" -ge "$next_sample" ] && [ "$t" -lt "$seconds" ]; then sample "$t"; next_sample=$((next_sample + sample_every)); bench_sample_load; fi
  sleep 1
done
[ "$next_restart" -lt 0 ] || restart_victim
# Kodiak gone: the load would only fail for the rest of its time.
[ -z "$kodiak_gone" ] || kill -TERM "$load_pid" 2>/dev/null || true
rc=0; wait "$load_pid" || rc=$?
load_pid=""
[ "$rc" = 0 ] || { log "the load exited $rc (logs/load.log)"; tail -n 20 "$out/logs/load.log" >&2; }
event end "recording"
# Once the load has stopped: what Kodiak holds idle (connections, buffers, files) after an hour of
# load, apart from the series fitted above.
sample $((SECONDS - t0)) after-load

# Kodiak stops as shipped: a drain that must end within its grace period.
stopped=true
PROXY_BASE=$out/kodiak timeout 60 "$root/bin/proxy.sh" stop >>"$out/logs/proxy.sh.log" 2>&1 || stopped=false
[ -n "$kodiak_gone" ] && stopped=false

# ---- what it measured -------------------------------------------------------------------------------
touch "$out/requests.tsv"   # a load that could not start wrote none: no requests, not no report
"$java17" -cp "$cp_all" SoakLoad classify "$out/requests.tsv" "$out/events.tsv" "$out/kodiak/logs" "127.0.0.1:$victim_port" "$out"
# The run's own verdicts on every outcome row: did Kodiak stay up, answer every sample, stop cleanly.
awk -v gone="$([ -n "$kodiak_gone" ] && echo 1 || echo 0)" -v misses="$health_misses" -v stopped="$stopped" -v OFS='\t' \
  'NR == 1 { print $0, "kodiak_exited", "health_misses", "stopped_cleanly"; next } { print $0, gone, misses, stopped }' \
  "$out/outcomes.tsv" >"$out/outcomes.tsv.tmp" && mv "$out/outcomes.tsv.tmp" "$out/outcomes.tsv"
mapfile -t versions < <(version_args java="$java17")
bench_report soak "$out" "bin/bench.sh soak $args" --rows "$out/outcomes.tsv" --rows "$samples" "${versions[@]}" \
  --param minutes="$minutes" --param rate="$rate" --param paced_rps="$(cat "$out/rate.txt" 2>/dev/null || echo)" \
  --param timeline="calibration ${calibrate} s; a sample every ${sample_every} s, a reload every ${reload_every} s; the server on $victim_port killed at ${kill_offset} s of every ${kill_period} s, restarted ${down_for} s later"
column -t -s $'\t' "$out/outcomes.tsv" | cut -c1-160
log "report: $out/report.md"
if $check; then
  unexplained=$(awk -F'\t' 'NR > 1 && $2 == "all" { print $7 }' "$out/outcomes.tsv")
  # A reload that did not apply is a failure of the run: the soak is there to exercise them.
  reloads_failed=$(awk -F'\t' '$2 == "reload" && $3 !~ / rc 0$/' "$out/events.tsv" | wc -l)
  if [ -n "$kodiak_gone" ] || [ "$health_misses" -gt 0 ] || [ "${unexplained:-1}" != 0 ] || [ "$rc" != 0 ] || ! $stopped \
    || [ "$reloads_failed" -gt 0 ]; then
    echo "soak --check: FAILED (unexplained failures ${unexplained:-unknown}, Kodiak ${kodiak_gone:-up}, /health misses $health_misses, load exit $rc, clean stop $stopped, reloads not applied $reloads_failed; $out/failures.tsv, logs/reloads.log)" >&2
    exit 1
  fi
  echo "soak --check: passed (no unexplained failure, every reload applied, Kodiak up and answering throughout)"
fi
