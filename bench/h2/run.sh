#!/usr/bin/env bash
# bin/bench.sh h2 [--quick] [--rounds N] [--seconds N] [--targets kodiak,nginx,haproxy,direct] [--tls]
#                 [--backend http1|h2c] [--grpc]
#
# HTTP/2 from clients, Kodiak against nginx and HAProxy in one run: each terminates HTTP/2 (h2c by prior
# knowledge by default; with --tls, h2 by ALPN over TLS 1.3 with one ECDSA P-256 certificate made here)
# and forwards to the same backend, one of:
#   --backend http1  (default) HTTP/1.1 keep-alive to a static nginx (bench/throughput/backend.nginx.conf,
#                    fixed bodies of 100 B and 10 KB)
#   --backend h2c    HTTP/2 by prior knowledge to that nginx and its bodies on a `listen ... http2` port
#                    (nginx's default of 128 streams per connection): Kodiak through a group with
#                    protocol = "h2", HAProxy `server ... proto h2`, nginx through grpc_pass (nginx 1.22's
#                    proxy_pass speaks HTTP/1.x only; grpc_pass relays any request over h2c, but without
#                    multiplexing: one upstream connection per request in flight)
#   --grpc           gRPC unary calls to a grpc-java server (bench/h2/grpc/GrpcEcho.java, built here against
#                    the project's test classpath; /bench.Echo/Unary answers the request's bytes): Kodiak's h2
#                    group, nginx grpc_pass, HAProxy proto h2, and the server directly (target direct, h2c)
# h2load (nghttp2-client) loads each in turn, one thread: HTTP, GET of 100 B and 10 KB × 10 connections ×
# 100 streams (-c 10 -m 100) and 100 connections × 10 streams (-c 100 -m 10); gRPC, the same two shapes
# of POSTs of one gRPC-framed 100-byte message (-d, content-type: application/grpc, te: trailers).
# Each cell starts with an unrecorded warm-up per target (Kodiak's JIT: 15 s the first time Kodiak is
# loaded, 3 s after; the others 3 s; with --grpc the server's JIT first, as long as Kodiak's first), then
# --rounds rounds of --seconds-long runs (h2load -D), the targets alternating within each round and
# rotating from round to round. Per run: req/s, errors (h2load's failed + errored + non-2xx; with --grpc
# also the 2xx responses without their 105-byte message, from h2load's data bytes: a gRPC error is a
# trailers-only answer) and the proxy's own CPU per request (utime + stime of its processes from /proc
# before and after: the JVM, nginx's master and workers, HAProxy's process; direct: the backend's).
# h2load cannot read trailers (grpc-status), so with --grpc, after each measured run, 100 real calls
# through that target (GrpcEcho client) check that every grpc-status is 0 and every answer its own.
# Kodiak runs as bin/proxy.sh ships it (KODIAK_HOME's, default this checkout), with its access log off
# like nginx's and HAProxy's (bench/throughput/logback.xml); KODIAK_JAVA_OPTS adds JVM options.
# Defaults: 3 rounds of 10 s; --quick: 1 round of 5 s, 8 s first Kodiak warm-up, 2 s after.
# Writes target/bench/h2-<timestamp>/: results.md (the table, the command, the machine, the versions),
# runs.tsv (a row per measured run) and every h2load output in h2load/ (and grpc/: GrpcEcho's build and
# checks). Bounded: h2load stops by itself (and is killed 30 s after its duration), a check after 60 s;
# everything started is stopped by pid, also on errors.
# Installs nginx, haproxy, nghttp2-client (h2load), curl and openssl when missing; builds Kodiak's
# checkout when its jar is missing or older than its sources (not a KODIAK_JAR); with --grpc, compiles
# GrpcEcho with javac against `mvn dependency:build-classpath` (test scope) of this checkout's pom.xml.
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

ALL_TARGETS=(kodiak nginx haproxy direct)
# The cells: body bytes (with --grpc, the message's), connections, streams per connection.
CELLS=("100 10 100" "100 100 10" "10240 10 100" "10240 100 10")
GRPC_CELLS=("100 10 100" "100 100 10")
GRPC_PATH=/bench.Echo/Unary
GRPC_CHECK_CALLS=100
USAGE="usage: bin/bench.sh h2 [--quick] [--rounds N] [--seconds N] [--targets kodiak,nginx,haproxy,direct] [--tls] [--backend http1|h2c] [--grpc]"

usage() { sed -n '2,47p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "h2: $*" >&2; exit 2; }
log() { echo "[h2 $(date +%H:%M:%S)] $*"; }

# ---- arguments -------------------------------------------------------------------------------------
quick=false tls=false grpc=false backend=http1 rounds="" seconds="" targets_arg=""
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=true ;;
    --tls) tls=true ;;
    --grpc) grpc=true ;;
    --backend) backend=${2:?--backend needs a value: http1 or h2c}; shift ;;
    --rounds) rounds=${2:?--rounds needs a value}; shift ;;
    --seconds) seconds=${2:?--seconds needs a value}; shift ;;
    --targets) targets_arg=${2:?--targets needs a value}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "$USAGE" >&2; exit 2 ;;
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
case $backend in
  http1|h2c) ;;
  *) die "--backend takes http1 or h2c, not '$backend'" ;;
esac
# mode: what the proxies forward to, and how: http1, h2c, or grpc (its own h2c backend, the gRPC server).
if $grpc; then
  [ "$backend" = http1 ] || die "--grpc has its own backend (the gRPC server, over h2c): no --backend with it"
  mode=grpc
  CELLS=("${GRPC_CELLS[@]}")
else
  mode=$backend
fi
# direct: h2load straight to the backend, which speaks h2c (not HTTP/1.1, not TLS). Default with --grpc.
if [ -z "$targets_arg" ]; then
  targets_arg=kodiak,nginx,haproxy
  [ "$mode" = grpc ] && ! $tls && targets_arg+=,direct
fi
targets=()
IFS=, read -r -a requested <<<"$targets_arg"
for t in ${requested[@]+"${requested[@]}"}; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || die "unknown target '$t' (known: ${ALL_TARGETS[*]})"
  [[ " ${targets[*]-} " == *" $t "* ]] || targets+=("$t")
done
[ ${#targets[@]} -gt 0 ] || die "no targets"
in_targets() { [[ " ${targets[*]} " == *" $1 "* ]]; }
if in_targets direct; then
  [ "$mode" != http1 ] || die "target direct needs an HTTP/2 backend (--backend h2c or --grpc): the HTTP/1.1 one does not speak h2c"
  ! $tls || die "target direct has no TLS (the backend is h2c): leave it out with --tls"
fi

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
if [ "$mode" = grpc ]; then
  javac17=$(dirname "$(readlink -f "$java17")")/javac
  [ -x "$javac17" ] || javac17=$(command -v javac) || die "--grpc: no javac (a JDK 17) to compile GrpcEcho"
  command -v mvn >/dev/null 2>&1 || die "--grpc: no mvn to resolve the gRPC libraries (the project's test classpath)"
fi
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
PORT[direct]=${PORT[backend]}
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

# ---- material: bodies, a gRPC message and GrpcEcho, a certificate --------------------------------------
backend_base=$out/run/backend
mkdir -p "$backend_base/logs" "$backend_base/tmp" "$backend_base/www"
for size in 100 10240; do head -c "$size" /dev/zero | tr '\0' b >"$backend_base/www/$size"; done
grpc_dir=$out/grpc grpc_cp="" grpc_version="" grpc_message=""
if [ "$mode" = grpc ]; then
  # One gRPC message as h2load sends it (-d): not compressed (0), the length in 4 bytes big-endian, 100 bytes.
  grpc_message=$out/run/grpc-message.bin
  { printf '\0\0\0\0\x64'; head -c 100 /dev/zero | tr '\0' g; } >"$grpc_message"
  [ "$(stat -c %s "$grpc_message")" = 105 ] || die "the gRPC message file is not 105 bytes"
  # GrpcEcho against grpc-netty-shaded and grpc-stub of the project's test scope (pom.xml), compiled here.
  mkdir -p "$grpc_dir/classes" "$grpc_dir/checks"
  log "build GrpcEcho (mvn dependency:build-classpath, javac; $grpc_dir/build.log)"
  timeout 600 mvn -B -q -f "$root/pom.xml" dependency:build-classpath -Dmdep.outputFile="$grpc_dir/classpath.txt" \
    -Dmdep.includeScope=test >"$grpc_dir/build.log" 2>&1 </dev/null || { tail -n 20 "$grpc_dir/build.log" >&2; die "mvn dependency:build-classpath failed"; }
  grpc_cp=$grpc_dir/classes:$(cat "$grpc_dir/classpath.txt")
  [[ $grpc_cp == *grpc-netty-shaded* ]] || die "no grpc-netty-shaded on the test classpath of $root/pom.xml"
  grpc_version=$(tr ':' '\n' <"$grpc_dir/classpath.txt" | sed -n 's#.*/grpc-netty-shaded-\([^/]*\)\.jar$#\1#p' | head -n 1)
  "$javac17" -nowarn -d "$grpc_dir/classes" -cp "$grpc_cp" "$here/grpc/GrpcEcho.java" >>"$grpc_dir/build.log" 2>&1 \
    || { tail -n 20 "$grpc_dir/build.log" >&2; die "javac GrpcEcho.java failed"; }
fi
if $tls; then
  mkdir -p "$out/tls"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$out/tls/server.key" -out "$out/tls/server.pem" 2>/dev/null
  cat "$out/tls/server.pem" "$out/tls/server.key" >"$out/tls/haproxy.pem"   # HAProxy's crt: both in one file
fi

# ---- services ---------------------------------------------------------------------------------------
start_backend() {
  local base=$backend_base
  if [ "$mode" = grpc ]; then
    # GrpcEcho's own quiet logging: logback (on the test classpath) at WARN, as Kodiak's.
    started+=("backend|$base/daemon.pid|GrpcEcho server 127.0.0.1 ${PORT[backend]}")
    daemon_start "backend (GrpcEcho)" "$base/daemon.pid" "$base/logs/console.log" "GrpcEcho server 127.0.0.1 ${PORT[backend]}" \
      127.0.0.1 "${PORT[backend]}" 60 -- "$java17" -Xms256m -Xmx512m -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError \
      "-Dlogback.configurationFile=$root/bench/throughput/logback.xml" -cp "$grpc_cp" GrpcEcho server 127.0.0.1 "${PORT[backend]}"
    return
  fi
  sed -e "s#@BASE@#$base#g" -e "s#@PORT@#${PORT[backend]}#g" "$root/bench/throughput/backend.nginx.conf" >"$base/nginx.conf"
  if [ "$mode" = h2c ]; then
    # The same server on an h2c port (prior knowledge, nginx 1.22's listen ... http2 without ssl).
    sed -i "s#^\( *listen 127\.0\.0\.1:${PORT[backend]}\) #\1 http2 #" "$base/nginx.conf"
    grep -q "listen 127\.0\.0\.1:${PORT[backend]} http2 " "$base/nginx.conf" || { echo "no listen line to make http2 in $base/nginx.conf" >&2; return 1; }
  fi
  "$nginx_bin" -t -q -p "$base/" -c "$base/nginx.conf" -e "$base/logs/error.log" >>"$base/logs/console.log" 2>&1 \
    || { tail -n 10 "$base/logs/console.log" >&2; return 1; }
  started+=("backend|$base/daemon.pid|-p $base/")
  daemon_start "backend (nginx)" "$base/daemon.pid" "$base/logs/console.log" "-p $base/" 127.0.0.1 "${PORT[backend]}" 30 -- \
    "$nginx_bin" -p "$base/" -c "$base/nginx.conf" -e "$base/logs/error.log"
}

start_nginx() {
  local base=$out/run/nginx listen tls_lines="" upstream_lines
  if [ "$mode" = http1 ]; then
    upstream_lines='proxy_pass http://backend;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffer_size 16k;
            proxy_buffers 8 16k;'
  else
    # HTTP/2 to the backend: grpc_pass is nginx's only way (any request, gRPC or not; one upstream
    # connection per request in flight, kept alive by keepalive below).
    upstream_lines='grpc_pass grpc://backend;
            grpc_buffer_size 16k;'
  fi
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
            $upstream_lines
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
    server upstream 127.0.0.1:${PORT[backend]}$([ "$mode" = http1 ] || echo ' proto h2')
CONF
  "$haproxy_bin" -c -q -f "$base/haproxy.cfg" >>"$base/logs/console.log" 2>&1 \
    || { tail -n 10 "$base/logs/console.log" >&2; return 1; }
  started+=("haproxy|$base/daemon.pid|-C $base")
  # -db: foreground without a master process, so the recorded pid is the proxy itself.
  daemon_start haproxy "$base/daemon.pid" "$base/logs/console.log" "-C $base" 127.0.0.1 "${PORT[haproxy]}" 30 -- \
    "$haproxy_bin" -db -C "$base" -f "$base/haproxy.cfg"
}

start_kodiak() {
  local base=$out/run/kodiak tls_block="" routes
  mkdir -p "$base/logs"
  if [ "$mode" = http1 ]; then
    routes="routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:${PORT[backend]}\" } ]"
  else
    # HTTP/2 to the backend (h2c by prior knowledge): a group with protocol = "h2"; its pool settings are upstream's below.
    routes="upstreams { backend { protocol = \"h2\", servers = [ \"http://127.0.0.1:${PORT[backend]}\" ] } }
  routes = [ { prefix = \"/\", upstream = \"http://backend/\" } ]"
  fi
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
  $routes
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

# direct: nothing to start, h2load goes straight to the backend.
start_direct() { :; }

# A target's processes, whose CPU it is charged: the JVM, nginx's master and workers, HAProxy's process;
# direct's are the backend's.
target_pids() {
  local entry name rest pid want=$1
  [ "$want" = direct ] && want=backend
  for entry in "${started[@]}"; do
    name=${entry%%|*} rest=${entry#*|}
    [ "$name" = "$want" ] || continue
    pid=$(daemon_pid "${rest%%|*}" "${rest#*|}") || return 1
    echo "$pid"
    pgrep -P "$pid" || true
  done
}

# ---- h2load -----------------------------------------------------------------------------------------
# What h2load asks, per mode: GET /SIZE, or with --grpc the unary call (POST of the message file).
load_args=()
[ "$mode" = grpc ] && load_args=(-d "$grpc_message" -H 'content-type: application/grpc' -H 'te: trailers')
# target_url TARGET SIZE
target_url() {
  local s=$scheme
  [ "$1" = direct ] && s=http
  if [ "$mode" = grpc ]; then echo "$s://127.0.0.1:${PORT[$1]}$GRPC_PATH"; else echo "$s://127.0.0.1:${PORT[$1]}/$2"; fi
}

# run_h2load TARGET SIZE CONNS STREAMS SECONDS OUTPUT: bounded, in the background so a signal stops it.
# The subshell around it writes its own cutime + cstime after waiting for it to OUTPUT.cpu: h2load's CPU.
run_h2load() {
  local rc=0 url
  url=$(target_url "$1" "$2")
  (
    rc=0
    timeout -k 5 $(($5 + 30)) h2load -t 1 -c "$3" -m "$4" -D "$5" ${load_args[@]+"${load_args[@]}"} "$url" \
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

# "reqps 2xx failed errored timeout non2xx data succeeded" from an h2load output ("-" for what it did not
# print); data: the response bodies' bytes (h2load's "traffic: ... (N) data"); succeeded: the requests
# done with a 2xx (the 2xx count also has the responses whose heads came in before -D ended, not their ends).
parse_h2load() {
  awk '
    /^finished in/ { for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^req\/s/) rps = $i; sub(/,$/, "", rps) }
    /^traffic:/ { for (i = 2; i <= NF; i++) if ($(i + 1) ~ /^data/) { data = $i; gsub(/[()]/, "", data) } }
    /^requests:/ { for (i = 2; i <= NF; i++) { v = $i + 0; w = $(i + 1); sub(/,$/, "", w)
                     if (w == "failed") failed = v; else if (w == "errored") errored = v; else if (w == "timeout") timeout = v
                     else if (w == "succeeded") succeeded = v } }
    /^status codes:/ { for (i = 3; i <= NF; i++) { v = $i + 0; w = $(i + 1); sub(/,$/, "", w)
                     if (w == "2xx") ok = v; else if (w ~ /^[345]xx$/) non += v } }
    END { printf "%s %s %s %s %s %s %s %s\n", (rps == "" ? "-" : rps), (ok == "" ? "-" : ok), (failed == "" ? "-" : failed),
            (errored == "" ? "-" : errored), (timeout == "" ? "-" : timeout), (non == "" ? "-" : non), (data == "" ? "-" : data),
            (succeeded == "" ? "-" : succeeded) }' "$1"
}

tsv=$out/runs.tsv
# mode is the clients' scheme (http: h2c, https: h2 over TLS); backend what the proxies forward to
# (http1, h2c or grpc). no_message (--grpc): 2xx responses without their 105-byte message, from h2load's
# data bytes; grpc_check: the calls after the run (ok, FAIL, or - without --grpc).
printf 'mode\tsize\tconnections\tstreams\ttarget\tround\tposition\tseconds\treq_per_s\tok_2xx\tfailed\terrored\ttimeout\tnon_2xx\tcpu_ticks\thz\tcpu_us_per_req\th2load_rc\tnote\tbackend_ticks\th2load_ticks\tmachine_busy_ticks\tmachine_total_ticks\tother_cpu_pct\tbackend\tno_message\tgrpc_check\n' >"$tsv"

# grpc_check TARGET NAME: GRPC_CHECK_CALLS unary calls through TARGET at once (GrpcEcho client, its own
# JVM), each a different message; prints GrpcEcho's one-line verdict, returns non-zero on any failure.
grpc_check() {
  local t=$1 file=$grpc_dir/checks/$2.txt tls_arg=() rc=0
  $tls && [ "$t" != direct ] && tls_arg=(tls)
  timeout -k 5 60 "$java17" -Xmx256m -XX:TieredStopAtLevel=1 "-Dlogback.configurationFile=$root/bench/throughput/logback.xml" \
    -cp "$grpc_cp" GrpcEcho client 127.0.0.1 "${PORT[$t]}" "$GRPC_CHECK_CALLS" ${tls_arg[@]+"${tls_arg[@]}"} >"$file" 2>&1 </dev/null || rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "GrpcEcho client killed after 60 s"
  else grep -v '^$' "$file" | tail -n 1 | tr '\t' ' '; fi
  return "$rc"
}

# measure TARGET SIZE CONNS STREAMS ROUND POSITION: one recorded run, one row in runs.tsv.
measure() {
  local t=$1 size=$2 c=$3 m=$4 round=$5 pos=$6 pids=() before after rc=0 note="" f
  local name="r$round-$t-$size-c$c-m$m"
  mapfile -t pids < <(target_pids "$t" || true)
  [ ${#pids[@]} -gt 0 ] || note="$t is not running"
  local bpids=() m0 m1 b0 b1
  # direct: the backend is the target itself, charged once.
  [ "$t" = direct ] || mapfile -t bpids < <(target_pids backend || true)
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
  # --grpc: h2load reads no trailers, but every good answer carries the 105-byte echo; a 2xx without it
  # (a trailers-only answer: grpc-status not 0) shows as data bytes short of 105 per request that
  # succeeded (done with a 2xx). The bytes also count the bodies of calls still open when -D ended, so
  # up to that many (-c × -m at most) such answers could hide; the real calls after the run are the check.
  local no_message=- check=- check_line
  if [ "$mode" = grpc ]; then
    if [ "${f[7]}" != - ] && [ "${f[6]}" != - ]; then
      no_message=$((f[7] - f[6] / 105))
      ((no_message >= 0)) || no_message=0
      ((no_message == 0)) || note="${note:+$note; }$no_message 2xx response(s) without their message (grpc-status not 0)"
    fi
    if check_line=$(grpc_check "$t" "$name"); then check=ok
    else check=FAIL note="${note:+$note; }gRPC check after the run: $check_line"; fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scheme" "$size" "$c" "$m" "$t" "$round" "$pos" \
    "$seconds" "${f[0]}" "${f[1]}" "${f[2]}" "${f[3]}" "${f[4]}" "${f[5]}" "$ticks" "$hz" "$cpu" "$rc" "$note" \
    "$((b1 - b0))" "$h2ticks" "$((m1[0] - m0[0]))" "$((m1[1] - m0[1]))" "$other" "$mode" "$no_message" "$check" >>"$tsv"
  log "  $(printf '%-8s %5s B c%-3s m%-3s round %s: %9s req/s  %6s µs CPU/req  errors %s+%s+%s%s  other-cpu %s%%' "$t" "$size" "$c" "$m" "$round" \
    "${f[0]}" "$cpu" "${f[2]}" "${f[3]}" "${f[5]}" "$([ "$mode" = grpc ] && echo "+$no_message  check $check")" "$other")${note:+  ($note)}"
}

# ---- preflight: every target answers each body over HTTP/2, and many streams on one connection ---------
# curl checks one request (protocol, status, body size); h2load then 20 streams on one connection, 10 at
# a time (curl 7.88 cannot reuse an h2c prior-knowledge connection for a second URL). --grpc: the body is
# the 105-byte echo of the message POSTed, and GrpcEcho client's calls must all succeed.
preflight_notes=()
preflight() {
  local t size line want url proto app pre sizes=(100 10240) req=() check_line
  [ "$mode" = grpc ] && sizes=(100) req=(--data-binary "@$grpc_message" -H 'content-type: application/grpc' -H 'te: trailers')
  for t in "${targets[@]}"; do
    proto=(--http2-prior-knowledge) app=h2c
    $tls && [ "$t" != direct ] && proto=(--http2 -k) app=h2
    for size in "${sizes[@]}"; do
      url=$(target_url "$t" "$size")
      line=$(curl -sS "${proto[@]}" ${req[@]+"${req[@]}"} --max-time 10 -o /dev/null -w '%{http_version}:%{http_code}:%{size_download}' "$url" 2>&1) || true
      want="2:200:$size"
      [ "$mode" = grpc ] && want="2:200:$((size + 5))"
      if [ "$line" != "$want" ]; then
        log "PREFLIGHT $t $size B: curl expected '$want' (HTTP version:status:bytes), got '$line'"
        preflight_notes+=("$t $size B: curl got '$line', expected '$want'")
      fi
      pre=$out/h2load/preflight-$t-$size.txt
      timeout 30 h2load -n 20 -c 1 -m 10 ${load_args[@]+"${load_args[@]}"} "$url" >"$pre" 2>&1 </dev/null || true
      line="$(grep -m1 '^Application protocol:' "$pre" || echo 'no protocol'); $(grep -m1 '^requests:' "$pre" || echo 'no requests line'); $(grep -m1 '^status codes:' "$pre" || echo 'no status line')"
      if ! grep -q "^Application protocol: $app\$" "$pre" || ! grep -q ' 20 succeeded, 0 failed, 0 errored' "$pre" || ! grep -q '^status codes: 20 2xx' "$pre" ||
         { [ "$mode" = grpc ] && ! grep -q "^traffic: .* ($((20 * (size + 5)))) data" "$pre"; }; then
        [ "$mode" = grpc ] && line+="; $(grep -m1 '^traffic:' "$pre" | sed 's/.*, //' || echo 'no traffic line') (want $((20 * (size + 5))))"
        log "PREFLIGHT $t $size B: h2load -n 20 -c 1 -m 10: $line"
        preflight_notes+=("$t $size B: h2load -n 20 -c 1 -m 10: $line")
      fi
    done
    if [ "$mode" = grpc ]; then
      if ! check_line=$(grpc_check "$t" "preflight-$t"); then
        log "PREFLIGHT $t: GrpcEcho client: $check_line"
        preflight_notes+=("$t: GrpcEcho client ($GRPC_CHECK_CALLS calls): $check_line")
      fi
    fi
  done
  if [ ${#preflight_notes[@]} -eq 0 ]; then
    if [ "$mode" = grpc ]; then
      log "preflight: every target echoes the message with 200 over h2c/h2, 20 streams on one connection, and $GRPC_CHECK_CALLS gRPC calls succeed"
    else
      log "preflight: every target answers 200 with the body's size over $app, and 20 streams on one connection"
    fi
  fi
  return 0
}

# ---- the run ----------------------------------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
case $mode in
  http1) backend_name="nginx, HTTP/1.1" ;;
  h2c) backend_name="nginx, h2c" ;;
  grpc) backend_name="GrpcEcho, h2c" ;;
esac
log "$scheme ($($tls && echo 'h2 by ALPN over TLS' || echo 'h2c by prior knowledge')) → $mode backend; targets ${targets[*]}; $rounds round(s) of ${seconds}s per cell; results in $out"
[ -z "$kodiak_info" ] || log "Kodiak: $kodiak_info"
log "start backend ($backend_name) on ${PORT[backend]}"
start_backend >>"$out/logs/services.log" 2>&1 || { tail -n 20 "$out/logs/services.log" >&2; die "the backend did not start"; }
for t in "${targets[@]}"; do
  log "start $t on ${PORT[$t]}"
  "start_$t" >>"$out/logs/services.log" 2>&1 || { tail -n 20 "$out/logs/services.log" >&2; die "$t did not start"; }
done
preflight
started_at=$SECONDS
kodiak_warmed=false
if [ "$mode" = grpc ]; then
  # The gRPC server is a JVM too: its JIT warmed once, directly, before any cell (not recorded).
  log "warm-up of the gRPC server, directly: ${kodiak_first_warm} s"
  run_h2load direct 100 10 100 "$kodiak_first_warm" "$out/h2load/warm-backend.txt" || log "  warm-up of the gRPC server: h2load exit $?"
fi
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
[ "$mode" = grpc ] && versions+=("grpc-java (GrpcEcho, grpc-netty-shaded): ${grpc_version:-unknown}; GrpcEcho's java: $(version_of java "$java17")")
client_side=$($tls && echo 'h2 over TLS (ALPN)' || echo 'h2c (prior knowledge)')
case $mode in
  http1) title="$client_side → HTTP/1.1 backend"
         load_what="\`h2load -t 1 -c C -m M -D $seconds $scheme://127.0.0.1:PORT/SIZE\` (GET)"
         upstream_what="HTTP/1.1 keep-alive to one nginx backend (2 workers) serving fixed files" ;;
  h2c)   title="$client_side → h2c backend"
         load_what="\`h2load -t 1 -c C -m M -D $seconds $scheme://127.0.0.1:PORT/SIZE\` (GET)"
         upstream_what="HTTP/2 (h2c, prior knowledge) to one nginx backend (2 workers, \`listen ... http2\`, 128 streams per connection) serving fixed files: Kodiak through a group with protocol = \"h2\", HAProxy \`server ... proto h2\` (http-reuse always)" ;;
  grpc)  title="gRPC unary calls, $client_side → grpc-java server (h2c)"
         load_what="\`h2load -t 1 -c C -m M -D $seconds -d MSG -H 'content-type: application/grpc' -H 'te: trailers' $scheme://127.0.0.1:PORT$GRPC_PATH\` (POST; MSG one gRPC-framed message: 0, length 100 big-endian, 100 bytes, echoed back)"
         upstream_what="HTTP/2 (h2c, prior knowledge) to one grpc-java 1.85 Netty server (bench/h2/grpc/GrpcEcho.java, its default 2 × cores event loops, the echo on them; -Xmx512m ParallelGC): Kodiak through a group with protocol = \"h2\", HAProxy \`server ... proto h2\` (http-reuse always), nginx \`grpc_pass grpc://\` (keepalive 2048)" ;;
esac
{
  echo "# HTTP/2 benchmark: $title"
  echo
  echo "- command: \`$invocation\`"
  echo "- date: $(date -u '+%F %T') UTC; measured in $((elapsed / 60)) min $((elapsed % 60)) s; load average before $load_before, after $load_after"
  echo "- machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)"
  for v in "${versions[@]}"; do echo "- $v"; done
  [ -z "$kodiak_info" ] || echo "- Kodiak: $kodiak_info; JAVA_OPTS -Dlogback.configurationFile=bench/throughput/logback.xml (access log off)${KODIAK_JAVA_OPTS:+ $KODIAK_JAVA_OPTS}"
  echo "- load: $load_what, $rounds round(s) per cell, targets alternating within a round;" \
       "warm-up per cell and target ${warm} s (Kodiak's first: ${kodiak_first_warm} s$([ "$mode" = grpc ] && echo "; the gRPC server's, directly, ${kodiak_first_warm} s before the first cell")), not recorded"
  echo "- proxies: 2 workers/threads each (nginx worker_processes 2, HAProxy nbthread 2, Kodiak selector-threads 2 same-thread), $upstream_what"
  if [ "$mode" = h2c ] && in_targets nginx; then
    echo "- nginx: through \`grpc_pass grpc://backend\` (keepalive 2048), nginx 1.22's only HTTP/2 upstream: proxy_pass speaks HTTP/1.0/1.1 alone; grpc_pass relays plain GETs too, but does not multiplex (one upstream connection per request in flight)"
  elif [ "$mode" = h2c ]; then
    echo "- nginx: not a target in this run (--targets); with it, it goes through grpc_pass, its only HTTP/2 upstream"
  fi
  in_targets direct && echo "- direct: h2load straight to the backend (h2c), no proxy; its CPU µs/req is the backend's own"
  if [ "$mode" = grpc ]; then
    echo "- CPU µs/req: utime+stime of the proxy's own processes (/proc/PID/stat) over the run ÷ 2xx responses; errors: h2load's failed + errored + non-2xx + 2xx responses without their 105-byte message" \
         "(h2load reads no trailers; its data bytes short of 105 per succeeded request: trailers-only answers, i.e. grpc-status not 0), summed over the rounds;" \
         "other CPU: the machine's busy time (/proc/stat) not spent by the proxy, the backend or h2load, in % of all CPU time, the largest of the rounds (someone else's load)"
    echo "- gRPC check: after each measured run, $GRPC_CHECK_CALLS unary calls at once through that target (\`GrpcEcho client\`, grpc-java's own client: fails on any grpc-status but 0 or a wrong echo):" \
         "$(awk -F'\t' 'NR > 1 && $27 != "-" { n++; if ($27 != "ok") bad++ } END { printf "%d of %d checks passed", n - bad, n }' "$tsv")$(awk -F'\t' 'NR > 1 && $27 == "FAIL" { b = 1 } END { if (b) printf " (failures in the errors column and the notes)" }' "$tsv")"
  else
    echo "- CPU µs/req: utime+stime of the proxy's own processes (/proc/PID/stat) over the run ÷ 2xx responses; errors: h2load's failed + errored + non-2xx, summed over the rounds;" \
         "other CPU: the machine's busy time (/proc/stat) not spent by the proxy, the backend or h2load, in % of all CPU time, the largest of the rounds (someone else's load)"
  fi
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
      err[key] += num($11) + num($12) + num($14) + num($26)
      if ($27 == "FAIL") chk[key]++
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
          printf "| %s | %s × %s | %s | %s | %s | %d%s%s | %s | %d |\n", body, p[2], p[3], tg[j],
            (r == "-" ? "—" : fmt(r) " (" range(rps[key]) ")"), (c == "-" ? "—" : fmt(c) " (" range(cpu[key]) ")"),
            err[key], (bad[key] ? " (" bad[key] " run(s) without a clean result)" : ""),
            (chk[key] ? " (gRPC check failed after " chk[key] " of " runs[key] " run(s))" : ""), ratio, oth[key]
        }
      }
    }' "$tsv"
  notes=$(awk -F'\t' 'NR > 1 && $19 != "" { printf "- %s B, -c %s -m %s, %s, round %s: %s\n", $2, $3, $4, $5, $6, $19 }' "$tsv")
  if [ -n "$notes" ]; then echo; echo "Notes from the runs:"; echo; echo "$notes"; fi
  if [ -n "$kodiak_warnings" ]; then
    echo; echo "Kodiak's warnings and errors during the run (count, message):"; echo; echo '```'; echo "$kodiak_warnings"; echo '```'
  fi
  echo
  echo "Raw h2load outputs: h2load/ (warm-*.txt and preflight-*.txt unrecorded); one row per measured run: runs.tsv; configurations: run/*/.$([ "$mode" = grpc ] && echo " GrpcEcho's build and every check's output: grpc/.")"
} >"$out/results.md"
ln -sfn "$(basename "$out")" "$root/target/bench/latest-h2"
cat "$out/results.md"
log "results: $out/results.md"
