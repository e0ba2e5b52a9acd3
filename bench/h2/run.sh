#!/usr/bin/env bash
# bin/bench.sh h2 [--quick] [--rounds N] [--seconds N] [--targets kodiak,nginx,haproxy] [--tls]
#
# HTTP/2 from clients, Kodiak against nginx and HAProxy in one run: each terminates HTTP/2 (h2c by prior
# knowledge by default; with --tls, h2 by ALPN over TLS 1.3 with one ECDSA P-256 certificate made here)
# and forwards over HTTP/1.1 keep-alive to the same static nginx backend (bench/throughput/backend.nginx.conf,
# fixed bodies of 100 B and 10 KB). h2load (nghttp2-client) loads each in turn, one thread, GET:
#   100 B and 10 KB × 10 connections × 100 streams (-c 10 -m 100), 100 connections × 10 streams (-c 100 -m 10).
# Each cell starts with an unrecorded warm-up per target (Kodiak's JIT: 15 s the first time Kodiak is
# loaded, 3 s after; the others 3 s), then --rounds rounds of --seconds-long runs (h2load -D), the
# targets alternating within each round and rotating from round to round. Per run: req/s, errors
# (h2load's failed + errored + non-2xx) and the proxy's own CPU per request (utime + stime of its
# processes from /proc before and after: the JVM, nginx's master and workers, HAProxy's process).
# Kodiak runs as bin/proxy.sh ships it (KODIAK_HOME's, default this checkout), with its access log off
# like nginx's and HAProxy's (bench/throughput/logback.xml); KODIAK_JAVA_OPTS adds JVM options.
# Defaults: 3 rounds of 10 s; --quick: 1 round of 5 s, 8 s first Kodiak warm-up, 2 s after.
# Writes target/bench/h2-<timestamp>/: results.md (the table, the command, the machine, the versions),
# runs.tsv (a row per measured run) and every h2load output in h2load/. Bounded: h2load stops by itself
# (and is killed 30 s after its duration); everything started is stopped by pid, also on errors.
# Installs nginx, haproxy, nghttp2-client (h2load), curl and openssl when missing; builds Kodiak's
# checkout when its jar is missing or older than its sources (not a KODIAK_JAR).
#
# Environment:
#   KODIAK_HOME     a Kodiak checkout with target/kodiak.jar and target/lib/ built (default: this one),
#                   started with its own bin/proxy.sh
#   KODIAK_JAR      instead: this jar (its libraries in lib/ beside it or in ../lib), started with java -jar
#                   and bin/proxy.sh's JVM defaults (-Xms256m -Xmx1g -XX:+UseParallelGC)
#   KODIAK_JAVA_OPTS  extra JVM options for Kodiak (-Dproxy.<key>=<value> overrides a setting)
#   H2_PORT_BASE    first port tried (default 9900): backend, Kodiak, nginx, HAProxy on the next free ports
set -euo pipefail
invocation="bin/bench.sh h2${*:+ $*}"

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../bin/lib/daemon.sh
. "$root/bin/lib/daemon.sh"
# shellcheck source=../../bin/lib/packages.sh
. "$root/bin/lib/packages.sh"
# shellcheck source=../lib/proc.sh
. "$root/bench/lib/proc.sh"
# shellcheck source=../lib/versions.sh
. "$root/bench/lib/versions.sh"

ALL_TARGETS=(kodiak nginx haproxy)
# The cells: body bytes, connections, streams per connection.
CELLS=("100 10 100" "100 100 10" "10240 10 100" "10240 100 10")

usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "h2: $*" >&2; exit 2; }
log() { echo "[h2 $(date +%H:%M:%S)] $*"; }

# ---- arguments -------------------------------------------------------------------------------------
quick=false tls=false rounds="" seconds="" targets_arg=kodiak,nginx,haproxy
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=true ;;
    --tls) tls=true ;;
    --rounds) rounds=${2:?--rounds needs a value}; shift ;;
    --seconds) seconds=${2:?--seconds needs a value}; shift ;;
    --targets) targets_arg=${2:?--targets needs a value}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "usage: bin/bench.sh h2 [--quick] [--rounds N] [--seconds N] [--targets kodiak,nginx,haproxy] [--tls]" >&2; exit 2 ;;
  esac
  shift
done
if $quick; then
  rounds=${rounds:-1} seconds=${seconds:-5} kodiak_first_warm=8 warm=2
else
  rounds=${rounds:-3} seconds=${seconds:-10} kodiak_first_warm=15 warm=3
fi
for n in "$rounds" "$seconds"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || die "--rounds and --seconds take positive whole numbers"
done
targets=()
IFS=, read -r -a requested <<<"$targets_arg"
for t in ${requested[@]+"${requested[@]}"}; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || die "unknown target '$t' (known: ${ALL_TARGETS[*]})"
  [[ " ${targets[*]-} " == *" $t "* ]] || targets+=("$t")
done
[ ${#targets[@]} -gt 0 ] || die "no targets"
in_targets() { [[ " ${targets[*]} " == *" $1 "* ]]; }

# ---- tools: from Debian when missing ----------------------------------------------------------------
tools=(nginx curl)
in_targets haproxy && tools+=(haproxy)
$tls && tools+=(openssl)
ensure_packages h2 "${tools[@]}" || exit 1
# The package is not named after its command: nghttp2-client provides h2load.
command -v h2load >/dev/null 2>&1 || ensure_packages h2 nghttp2-client || exit 1
command -v h2load >/dev/null 2>&1 || die "h2load not found after installing nghttp2-client"
export PATH=$PATH:/usr/sbin
nginx_bin=$(command -v nginx)
haproxy_bin=$(command -v haproxy || echo /usr/sbin/haproxy)
java17=$(daemon_java 17) || die "no Java 17 found"
hz=$(getconf CLK_TCK)

# ---- Kodiak: the checkout's jar, built when stale, or KODIAK_JAR ----------------------------------------------------------
kodiak_home=$(cd "${KODIAK_HOME:-$root}" 2>/dev/null && pwd) || die "KODIAK_HOME=${KODIAK_HOME:-} is not a directory"
kodiak_jar="" kodiak_lib="" kodiak_info=""
if in_targets kodiak; then
  if [ -n "${KODIAK_JAR:-}" ]; then
    kodiak_jar=$(readlink -f "$KODIAK_JAR") || die "KODIAK_JAR=$KODIAK_JAR not found"
    [ -f "$kodiak_jar" ] || die "KODIAK_JAR=$KODIAK_JAR is not a file"
    for d in "$(dirname "$kodiak_jar")/lib" "$(dirname "$kodiak_jar")/../lib"; do
      [ -d "$d" ] && { kodiak_lib=$(cd "$d" && pwd); break; }
    done
    [ -n "$kodiak_lib" ] || die "no lib/ beside or above $kodiak_jar (Kodiak's libraries)"
    kodiak_info="$kodiak_jar of $(date -r "$kodiak_jar" '+%F %T'), started with java -jar"
  else
    jar=$kodiak_home/target/kodiak.jar
    # The code in the checkout is what is measured: built first when the jar is missing or older
    # than the sources (as the other benches do; bin/lib/build.sh).
    # shellcheck source=../../bin/lib/build.sh
    . "$root/bin/lib/build.sh"
    kodiak_build_if_stale "$kodiak_home" "${TMPDIR:-/tmp}/kodiak-h2-build-$$.log" || die "the build of $kodiak_home failed"
    [ -f "$jar" ] && [ -d "$kodiak_home/target/lib" ] ||
      die "no $jar and target/lib/ after the build, or set KODIAK_HOME or KODIAK_JAR"
    kodiak_info="$jar of $(date -r "$jar" '+%F %T'), started with $kodiak_home/bin/proxy.sh"
    if [ -n "$(find "$kodiak_home/src/main" "$kodiak_home/pom.xml" -newer "$jar" -print -quit 2>/dev/null)" ]; then
      kodiak_info+="; NOTE: sources in $kodiak_home are newer than the jar (measured the jar as it is)"
    fi
    commit=$(git -C "$kodiak_home" rev-parse --short HEAD 2>/dev/null || echo unknown)
    git -C "$kodiak_home" diff --quiet HEAD -- src pom.xml 2>/dev/null || commit+=" + uncommitted changes in src/ or pom.xml"
    kodiak_info+="; checkout at $commit"
  fi
fi

# ---- the run's directory and ports ------------------------------------------------------------------
stamp=$(date -u +%Y%m%d-%H%M%S)
out=$root/target/bench/h2-$stamp
suffix=1
while [ -e "$out" ]; do out=$root/target/bench/h2-$stamp-$((suffix++)); done
mkdir -p "$out/h2load" "$out/logs" "$out/run"
port_base=${H2_PORT_BASE:-9900}
[[ $port_base =~ ^[0-9]+$ ]] && ((port_base >= 1024 && port_base <= 65000)) || die "H2_PORT_BASE must be a port from 1024 to 65000"
declare -A PORT
next=$port_base
for s in backend kodiak nginx haproxy; do
  PORT[$s]=$(daemon_free_port "$next")
  next=$((PORT[$s] + 1))
done
if $tls; then scheme=https; else scheme=http; fi

# ---- cleanup: what this run started, by pid and marker, also on Ctrl-C and errors --------------------
started=()   # "name|pidfile|marker"
h2_pid=""
cleanup() {
  local rc=$? i entry name rest
  trap - EXIT INT TERM
  if [ -n "$h2_pid" ]; then
    for child in $(ps -o pid= --ppid "$h2_pid" 2>/dev/null); do kill -TERM "$child" 2>/dev/null || true; done
    wait "$h2_pid" 2>/dev/null || true
  fi
  for ((i = ${#started[@]} - 1; i >= 0; i--)); do
    entry=${started[i]} name=${entry%%|*} rest=${entry#*|}
    daemon_stop "$name" "${rest%%|*}" "${rest#*|}" 30 >>"$out/logs/services.log" 2>&1 || true
  done
  exit "$rc"
}
trap cleanup EXIT
trap 'echo; log interrupted; exit 130' INT
trap 'log terminated; exit 143' TERM

# ---- material: bodies, a certificate ----------------------------------------------------------------
backend_base=$out/run/backend
mkdir -p "$backend_base/logs" "$backend_base/tmp" "$backend_base/www"
for size in 100 10240; do head -c "$size" /dev/zero | tr '\0' b >"$backend_base/www/$size"; done
if $tls; then
  mkdir -p "$out/tls"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$out/tls/server.key" -out "$out/tls/server.pem" 2>/dev/null
  cat "$out/tls/server.pem" "$out/tls/server.key" >"$out/tls/haproxy.pem"   # HAProxy's crt: both in one file
fi

# ---- services ---------------------------------------------------------------------------------------
start_backend() {
  local base=$backend_base
  sed -e "s#@BASE@#$base#g" -e "s#@PORT@#${PORT[backend]}#g" "$root/bench/throughput/backend.nginx.conf" >"$base/nginx.conf"
  "$nginx_bin" -t -q -p "$base/" -c "$base/nginx.conf" -e "$base/logs/error.log" >>"$base/logs/console.log" 2>&1 \
    || { tail -n 10 "$base/logs/console.log" >&2; return 1; }
  started+=("backend|$base/daemon.pid|-p $base/")
  daemon_start "backend (nginx)" "$base/daemon.pid" "$base/logs/console.log" "-p $base/" 127.0.0.1 "${PORT[backend]}" 30 -- \
    "$nginx_bin" -p "$base/" -c "$base/nginx.conf" -e "$base/logs/error.log"
}

start_nginx() {
  local base=$out/run/nginx listen tls_lines=""
  mkdir -p "$base/logs" "$base/tmp"
  if $tls; then
    listen="listen 127.0.0.1:${PORT[nginx]} ssl http2 backlog=4096;"
    tls_lines="ssl_certificate $out/tls/server.pem; ssl_certificate_key $out/tls/server.key; ssl_protocols TLSv1.3 TLSv1.2;"
  else
    # A plain listener with http2 only: h2c by prior knowledge (nginx 1.22).
    listen="listen 127.0.0.1:${PORT[nginx]} http2 backlog=4096;"
  fi
  cat >"$base/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes 2;          # one per core, as Kodiak gets two selector threads and HAProxy two threads
worker_rlimit_nofile 20000;
pid $base/nginx.pid;
error_log $base/logs/error.log warn;
events { worker_connections 19000; }
http {
    access_log off;
    client_body_temp_path $base/tmp/client_body; proxy_temp_path $base/tmp/proxy; fastcgi_temp_path $base/tmp/fastcgi;
    uwsgi_temp_path $base/tmp/uwsgi; scgi_temp_path $base/tmp/scgi;
    # Also HTTP/2's requests per connection (default 1,000, then GOAWAY) and idle time since nginx 1.19.7.
    keepalive_timeout 600s;
    keepalive_requests 100000000;
    tcp_nodelay on;
    server_tokens off;
    upstream backend {
        server 127.0.0.1:${PORT[backend]};
        keepalive 2048;      # above the 1,000 streams in flight: never closes a connection it needs again
        keepalive_requests 100000000;
        keepalive_timeout 600s;
    }
    server {
        $listen
        $tls_lines
        location / {
            proxy_pass http://backend;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffer_size 16k;
            proxy_buffers 8 16k;
        }
    }
}
CONF
  "$nginx_bin" -t -q -p "$base/" -c "$base/nginx.conf" -e "$base/logs/error.log" >>"$base/logs/console.log" 2>&1 \
    || { tail -n 10 "$base/logs/console.log" >&2; return 1; }
  started+=("nginx|$base/daemon.pid|-p $base/")
  daemon_start nginx "$base/daemon.pid" "$base/logs/console.log" "-p $base/" 127.0.0.1 "${PORT[nginx]}" 30 -- \
    "$nginx_bin" -p "$base/" -c "$base/nginx.conf" -e "$base/logs/error.log"
}

start_haproxy() {
  local base=$out/run/haproxy bind
  mkdir -p "$base/logs"
  if $tls; then
    bind="bind 127.0.0.1:${PORT[haproxy]} ssl crt $out/tls/haproxy.pem alpn h2,http/1.1 backlog 4096"
  else
    bind="bind 127.0.0.1:${PORT[haproxy]} proto h2 backlog 4096"
  fi
  cat >"$base/haproxy.cfg" <<CONF
global
    maxconn 9000
    nbthread 2                  # one per core, like nginx's workers and Kodiak's selector threads
    tune.pool-low-fd-ratio 90
    tune.pool-high-fd-ratio 95

defaults
    mode http
    option http-keep-alive
    http-reuse always           # any idle upstream connection may carry any client's request
    timeout connect 5s
    timeout client 600s
    timeout http-keep-alive 600s
    timeout server 30s
    maxconn 9000

frontend bench
    $bind
    default_backend upstream

backend upstream
    server upstream 127.0.0.1:${PORT[backend]}
CONF
  "$haproxy_bin" -c -q -f "$base/haproxy.cfg" >>"$base/logs/console.log" 2>&1 \
    || { tail -n 10 "$base/logs/console.log" >&2; return 1; }
  started+=("haproxy|$base/daemon.pid|-C $base")
  # -db: foreground without a master process, so the recorded pid is the proxy itself.
  daemon_start haproxy "$base/daemon.pid" "$base/logs/console.log" "-C $base" 127.0.0.1 "${PORT[haproxy]}" 30 -- \
    "$haproxy_bin" -db -C "$base" -f "$base/haproxy.cfg"
}

start_kodiak() {
  local base=$out/run/kodiak tls_block=""
  mkdir -p "$base/logs"
  $tls && tls_block="tls { certificate = \"$out/tls/server.pem\", key = \"$out/tls/server.key\" }"
  cat >"$base/kodiak.conf" <<CONF
# The plain listener takes h2c by prior knowledge (listener.http2 = true, the default); a TLS one offers h2 by ALPN.
proxy {
  listener {
    host = "127.0.0.1"
    port = ${PORT[kodiak]}
    # One selector per core and no hand-off to workers, as in bench/throughput/kodiak.conf.
    selector-threads = 2
    io-strategy = "same-thread"
    idle-timeout = 600s
    $tls_block
  }
  routes = [ { prefix = "/", upstream = "http://127.0.0.1:${PORT[backend]}" } ]
  upstream {
    persistent-connections = true
    max-connections = 9000      # above the 1,000 streams in flight: the pool never queues
    response-timeout = 30s
    idle-timeout = 600s
  }
  admin { enabled = false }
  shutdown { grace-period = 5s }
}
CONF
  local opts="-Dlogback.configurationFile=$root/bench/throughput/logback.xml${KODIAK_JAVA_OPTS:+ $KODIAK_JAVA_OPTS}"
  if [ -n "$kodiak_jar" ]; then
    local words=()
    read -r -a words <<<"$opts"
    started+=("kodiak|$base/daemon.pid|-c $base/kodiak.conf")
    (cd "$base" && daemon_start kodiak "$base/daemon.pid" "$base/logs/console.log" "-c $base/kodiak.conf" 127.0.0.1 "${PORT[kodiak]}" 90 -- \
      "$java17" -Xms256m -Xmx1g -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError "${words[@]}" \
      -cp "$kodiak_jar:$kodiak_lib/*" io.kodiak.daemon.Main -c "$base/kodiak.conf")
  else
    started+=("kodiak|$base/proxy.pid|-Dkodiak.daemon=proxy:$base ")
    PROXY_CONF=$base/kodiak.conf PROXY_BASE=$base JAVA_OPTS=$opts "$kodiak_home/bin/proxy.sh" start \
      >>"$base/logs/proxy.sh.log" 2>&1 || { tail -n 20 "$base/logs/proxy.sh.log" >&2; return 1; }
  fi
}

# A target's processes, whose CPU it is charged: the JVM, nginx's master and workers, HAProxy's process.
target_pids() {
  local entry name rest pid
  for entry in "${started[@]}"; do
    name=${entry%%|*} rest=${entry#*|}
    [ "$name" = "$1" ] || continue
    pid=$(daemon_pid "${rest%%|*}" "${rest#*|}") || return 1
    echo "$pid"
    pgrep -P "$pid" || true
  done
}

# ---- h2load -----------------------------------------------------------------------------------------
# run_h2load TARGET SIZE CONNS STREAMS SECONDS OUTPUT: bounded, in the background so a signal stops it.
# The subshell around it writes its own cutime + cstime after waiting for it to OUTPUT.cpu: h2load's CPU.
run_h2load() {
  local rc=0
  (
    rc=0
    timeout -k 5 $(($5 + 30)) h2load -t 1 -c "$3" -m "$4" -D "$5" "$scheme://127.0.0.1:${PORT[$1]}/$2" \
      >"$6" 2>&1 </dev/null || rc=$?
    read -r line <"/proc/$BASHPID/stat"
    read -r -a f <<<"${line##*) }"
    echo "$((f[13] + f[14]))" >"$6.cpu"
    exit "$rc"
  ) &
  h2_pid=$!
  wait "$h2_pid" || rc=$?
  h2_pid=""
  return "$rc"
}

# "reqps 2xx failed errored timeout non2xx" from an h2load output ("-" for what it did not print).
parse_h2load() {
  awk '
    /^finished in/ { for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^req\/s/) rps = $i; sub(/,$/, "", rps) }
    /^requests:/ { for (i = 2; i <= NF; i++) { v = $i + 0; w = $(i + 1); sub(/,$/, "", w)
                     if (w == "failed") failed = v; else if (w == "errored") errored = v; else if (w == "timeout") timeout = v } }
    /^status codes:/ { for (i = 3; i <= NF; i++) { v = $i + 0; w = $(i + 1); sub(/,$/, "", w)
                     if (w == "2xx") ok = v; else if (w ~ /^[345]xx$/) non += v } }
    END { printf "%s %s %s %s %s %s\n", (rps == "" ? "-" : rps), (ok == "" ? "-" : ok), (failed == "" ? "-" : failed),
            (errored == "" ? "-" : errored), (timeout == "" ? "-" : timeout), (non == "" ? "-" : non) }' "$1"
}

tsv=$out/runs.tsv
printf 'mode\tsize\tconnections\tstreams\ttarget\tround\tposition\tseconds\treq_per_s\tok_2xx\tfailed\terrored\ttimeout\tnon_2xx\tcpu_ticks\thz\tcpu_us_per_req\th2load_rc\tnote\tbackend_ticks\th2load_ticks\tmachine_busy_ticks\tmachine_total_ticks\tother_cpu_pct\n' >"$tsv"

# measure TARGET SIZE CONNS STREAMS ROUND POSITION: one recorded run, one row in runs.tsv.
measure() {
  local t=$1 size=$2 c=$3 m=$4 round=$5 pos=$6 pids=() before after rc=0 note="" f
  local name="r$round-$t-$size-c$c-m$m"
  mapfile -t pids < <(target_pids "$t" || true)
  [ ${#pids[@]} -gt 0 ] || note="$t is not running"
  local bpids=() m0 m1 b0 b1
  mapfile -t bpids < <(target_pids backend || true)
  b0=$(cpu_ticks ${bpids[@]+"${bpids[@]}"})
  read -r -a m0 <<<"$(machine_ticks)"
  before=$(cpu_ticks ${pids[@]+"${pids[@]}"})
  run_h2load "$t" "$size" "$c" "$m" "$seconds" "$out/h2load/$name.txt" || rc=$?
  # The alive processes only: a worker that exited takes its ticks with it (noted).
  local alive=()
  for p in ${pids[@]+"${pids[@]}"}; do [ -r "/proc/$p/stat" ] && alive+=("$p"); done
  [ ${#alive[@]} = ${#pids[@]} ] || note="${note:+$note; }$((${#pids[@]} - ${#alive[@]})) of its processes exited during the run"
  after=$(cpu_ticks ${alive[@]+"${alive[@]}"})
  read -r -a m1 <<<"$(machine_ticks)"
  b1=$(cpu_ticks ${bpids[@]+"${bpids[@]}"})
  local h2ticks
  h2ticks=$(cat "$out/h2load/$name.txt.cpu" 2>/dev/null || echo 0)
  rm -f "$out/h2load/$name.txt.cpu"
  # The machine's busy time that none of the run's processes (proxy, backend, h2load) account for, in %.
  local other
  other=$(awk -v busy="$((m1[0] - m0[0]))" -v total="$((m1[1] - m0[1]))" -v mine="$((after - before + b1 - b0 + h2ticks))" \
    'BEGIN { o = total > 0 ? 100 * (busy - mine) / total : 0; printf "%.0f", (o < 0 ? 0 : o) }')
  [ "$rc" = 0 ] || note="${note:+$note; }h2load exit $rc$([ "$rc" = 124 ] && echo ' (killed: it did not finish within its duration + 30 s)')"
  read -r -a f <<<"$(parse_h2load "$out/h2load/$name.txt")"
  [ "${f[0]}" != - ] || note="${note:+$note; }no h2load result: $(grep -v '^$' "$out/h2load/$name.txt" | tail -n 1 | tr '\t' ' ')"
  local ticks=$((after - before)) cpu=-
  [ "${f[1]}" != - ] && ((f[1] > 0)) && cpu=$(awk -v t="$ticks" -v hz="$hz" -v n="${f[1]}" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scheme" "$size" "$c" "$m" "$t" "$round" "$pos" \
    "$seconds" "${f[0]}" "${f[1]}" "${f[2]}" "${f[3]}" "${f[4]}" "${f[5]}" "$ticks" "$hz" "$cpu" "$rc" "$note" \
    "$((b1 - b0))" "$h2ticks" "$((m1[0] - m0[0]))" "$((m1[1] - m0[1]))" "$other" >>"$tsv"
  log "  $(printf '%-8s %5s B c%-3s m%-3s round %s: %9s req/s  %6s µs CPU/req  errors %s+%s+%s  other-cpu %s%%' "$t" "$size" "$c" "$m" "$round" \
    "${f[0]}" "$cpu" "${f[2]}" "${f[3]}" "${f[5]}" "$other")${note:+  ($note)}"
}

# ---- preflight: every target answers each body over HTTP/2, and many streams on one connection ---------
# curl checks one request (protocol, status, body size); h2load then 20 streams on one connection, 10 at
# a time (curl 7.88 cannot reuse an h2c prior-knowledge connection for a second URL).
preflight_notes=()
preflight() {
  local t size line want url proto=(--http2-prior-knowledge) app=h2c pre
  $tls && proto=(--http2 -k) app=h2
  for t in "${targets[@]}"; do
    for size in 100 10240; do
      url="$scheme://127.0.0.1:${PORT[$t]}/$size"
      line=$(curl -sS "${proto[@]}" --max-time 10 -o /dev/null -w '%{http_version}:%{http_code}:%{size_download}' "$url" 2>&1) || true
      want="2:200:$size"
      if [ "$line" != "$want" ]; then
        log "PREFLIGHT $t $size B: curl expected '$want' (HTTP version:status:bytes), got '$line'"
        preflight_notes+=("$t $size B: curl got '$line', expected '$want'")
      fi
      pre=$out/h2load/preflight-$t-$size.txt
      timeout 30 h2load -n 20 -c 1 -m 10 "$url" >"$pre" 2>&1 </dev/null || true
      line="$(grep -m1 '^Application protocol:' "$pre" || echo 'no protocol'); $(grep -m1 '^requests:' "$pre" || echo 'no requests line'); $(grep -m1 '^status codes:' "$pre" || echo 'no status line')"
      if ! grep -q "^Application protocol: $app\$" "$pre" || ! grep -q ' 20 succeeded, 0 failed, 0 errored' "$pre" || ! grep -q '^status codes: 20 2xx' "$pre"; then
        log "PREFLIGHT $t $size B: h2load -n 20 -c 1 -m 10: $line"
        preflight_notes+=("$t $size B: h2load -n 20 -c 1 -m 10: $line")
      fi
    done
  done
  [ ${#preflight_notes[@]} -eq 0 ] && log "preflight: every target answers 200 with the body's size over $app, and 20 streams on one connection"
  return 0
}

# ---- the run ----------------------------------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "$scheme ($($tls && echo 'h2 by ALPN over TLS' || echo 'h2c by prior knowledge')); targets ${targets[*]}; $rounds round(s) of ${seconds}s per cell; results in $out"
[ -z "$kodiak_info" ] || log "Kodiak: $kodiak_info"
log "start backend (nginx) on ${PORT[backend]}"
start_backend >>"$out/logs/services.log" 2>&1 || { tail -n 20 "$out/logs/services.log" >&2; die "the backend did not start"; }
for t in "${targets[@]}"; do
  log "start $t on ${PORT[$t]}"
  "start_$t" >>"$out/logs/services.log" 2>&1 || { tail -n 20 "$out/logs/services.log" >&2; die "$t did not start"; }
done
preflight
started_at=$SECONDS
kodiak_warmed=false
ncell=0
for cell in "${CELLS[@]}"; do
  read -r size c m <<<"$cell"
  ncell=$((ncell + 1))
  log "cell $ncell/${#CELLS[@]}: $size B body, -c $c -m $m"
  for t in "${targets[@]}"; do
    w=$warm
    if [ "$t" = kodiak ] && ! $kodiak_warmed; then w=$kodiak_first_warm; kodiak_warmed=true; fi
    run_h2load "$t" "$size" "$c" "$m" "$w" "$out/h2load/warm-$t-$size-c$c-m$m.txt" || log "  warm-up of $t: h2load exit $?"
  done
  for ((round = 1; round <= rounds; round++)); do
    # The targets in turn, starting one further each round and cell, so none always runs first.
    n=${#targets[@]} pos=0
    for ((k = 0; k < n; k++)); do
      pos=$((pos + 1))
      measure "${targets[(k + round + ncell) % n]}" "$size" "$c" "$m" "$round" "$pos"
    done
  done
done
elapsed=$((SECONDS - started_at))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
log "measured in $((elapsed / 60)) min $((elapsed % 60)) s"

# Kodiak's log: anything it warned about during the run (its access log is off).
kodiak_warnings=""
if in_targets kodiak; then
  for f in "$out/run/kodiak/logs/console.log" "$out/run/kodiak/logs/kodiak.log"; do
    [ -f "$f" ] || continue
    # Each WARN or ERROR line with the exception under it (its first line, and the first frame), counted.
    kodiak_warnings+=$(awk '
      function flush() { if (msg != "") print msg; msg = "" }
      / (WARN|ERROR) / { flush(); msg = $0; sub(/^[0-9:.]+ /, "", msg); frames = 0; next }
      msg != "" && /^[A-Za-z_$][A-Za-z0-9_$.]*(Exception|Error)/ { msg = msg " — " $0; next }
      msg != "" && /^[ \t]+at / { if (frames++ == 0) { f = $0; sub(/^[ \t]+/, "", f); msg = msg " " f } ; next }
      { flush() }
      END { flush() }' "$f" | sort | uniq -c | sort -rn | head -n 10 || true)
  done
fi

# ---- results.md -------------------------------------------------------------------------------------
versions=("h2load: $(h2load --version 2>&1 | head -n 1)" "nginx: $(version_of nginx "$nginx_bin")")
in_targets haproxy && versions+=("haproxy: $(version_of haproxy "$haproxy_bin")")
in_targets kodiak && versions+=("java: $(version_of java "$java17")")
$tls && versions+=("openssl: $(version_of openssl)")
{
  echo "# HTTP/2 benchmark: $($tls && echo 'h2 over TLS (ALPN)' || echo 'h2c (prior knowledge)') → HTTP/1.1 backend"
  echo
  echo "- command: \`$invocation\`"
  echo "- date: $(date -u '+%F %T') UTC; measured in $((elapsed / 60)) min $((elapsed % 60)) s; load average before $load_before, after $load_after"
  echo "- machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)"
  for v in "${versions[@]}"; do echo "- $v"; done
  [ -z "$kodiak_info" ] || echo "- Kodiak: $kodiak_info; JAVA_OPTS -Dlogback.configurationFile=bench/throughput/logback.xml (access log off)${KODIAK_JAVA_OPTS:+ $KODIAK_JAVA_OPTS}"
  echo "- load: \`h2load -t 1 -c C -m M -D $seconds $scheme://127.0.0.1:PORT/SIZE\` (GET), $rounds round(s) per cell, targets alternating within a round;" \
       "warm-up per cell and target ${warm} s (Kodiak's first: ${kodiak_first_warm} s), not recorded"
  echo "- proxies: 2 workers/threads each (nginx worker_processes 2, HAProxy nbthread 2, Kodiak selector-threads 2 same-thread), HTTP/1.1 keep-alive to one nginx backend (2 workers) serving fixed files"
  echo "- CPU µs/req: utime+stime of the proxy's own processes (/proc/PID/stat) over the run ÷ 2xx responses; errors: h2load's failed + errored + non-2xx, summed over the rounds;" \
       "other CPU: the machine's busy time (/proc/stat) not spent by the proxy, the backend or h2load, in % of all CPU time, the largest of the rounds (someone else's load)"
  [ ${#preflight_notes[@]} -eq 0 ] || { echo "- PREFLIGHT FAILURES:"; printf '  - %s\n' "${preflight_notes[@]}"; }
  echo
  echo "| body | -c × -m | target | req/s median (min–max) | CPU µs/req median (min–max) | errors | Kodiak/nginx CPU per req | other CPU % (max) |"
  echo "|---|---|---|---|---|---|---|---|"
  awk -F'\t' -v order="${targets[*]}" '
    function median(list,   a, n, i, j, v) {
      n = split(list, a, " "); if (n == 0) return "-"
      for (i = 2; i <= n; i++) { v = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > v; j--) a[j + 1] = a[j]; a[j + 1] = v }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function range(list,   a, n, i, lo, hi) {
      n = split(list, a, " "); if (n == 0) return ""
      lo = hi = a[1] + 0; for (i = 2; i <= n; i++) { if (a[i] + 0 < lo) lo = a[i] + 0; if (a[i] + 0 > hi) hi = a[i] + 0 }
      return sprintf("%s–%s", fmt(lo), fmt(hi))
    }
    function fmt(x) { return x >= 1000 ? sprintf("%.0f", x) : sprintf("%.1f", x) }
    function num(x) { return x == "-" ? 0 : x + 0 }
    NR == 1 { next }
    {
      key = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5
      if (!(($2 SUBSEP $3 SUBSEP $4) in seen)) { seen[$2 SUBSEP $3 SUBSEP $4] = 1; cells[++ncells] = $2 SUBSEP $3 SUBSEP $4 }
      if ($9 != "-") rps[key] = rps[key] " " $9
      if ($17 != "-") cpu[key] = cpu[key] " " $17
      err[key] += num($11) + num($12) + num($14)
      if ($9 == "-" || $18 != 0) bad[key]++
      runs[key]++
      if (!(key in oth) || $24 + 0 > oth[key]) oth[key] = $24 + 0
    }
    END {
      nt = split(order, tg, " ")
      for (i = 1; i <= ncells; i++) {
        split(cells[i], p, SUBSEP)
        body = p[1] >= 1024 ? (p[1] / 1024) " KB" : p[1] " B"
        kc = median(cpu[cells[i] SUBSEP "kodiak"]); nc = median(cpu[cells[i] SUBSEP "nginx"])
        for (j = 1; j <= nt; j++) {
          key = cells[i] SUBSEP tg[j]
          if (!(key in runs)) continue
          r = median(rps[key]); c = median(cpu[key])
          ratio = (tg[j] == "kodiak" && kc != "-" && nc != "-" && nc > 0) ? sprintf("%.2f", kc / nc) : ""
          printf "| %s | %s × %s | %s | %s | %s | %d%s | %s | %d |\n", body, p[2], p[3], tg[j],
            (r == "-" ? "—" : fmt(r) " (" range(rps[key]) ")"), (c == "-" ? "—" : fmt(c) " (" range(cpu[key]) ")"),
            err[key], (bad[key] ? " (" bad[key] " run(s) without a clean result)" : ""), ratio, oth[key]
        }
      }
    }' "$tsv"
  notes=$(awk -F'\t' 'NR > 1 && $19 != "" { printf "- %s B, -c %s -m %s, %s, round %s: %s\n", $2, $3, $4, $5, $6, $19 }' "$tsv")
  if [ -n "$notes" ]; then echo; echo "Notes from the runs:"; echo; echo "$notes"; fi
  if [ -n "$kodiak_warnings" ]; then
    echo; echo "Kodiak's warnings and errors during the run (count, message):"; echo; echo '```'; echo "$kodiak_warnings"; echo '```'
  fi
  echo
  echo "Raw h2load outputs: h2load/ (warm-*.txt and preflight-*.txt unrecorded); one row per measured run: runs.tsv; configurations: run/*/."
} >"$out/results.md"
ln -sfn "$(basename "$out")" "$root/target/bench/latest-h2"
cat "$out/results.md"
log "results: $out/results.md"
