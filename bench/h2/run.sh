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
# runs.jsonl (a row per measured run, fields by name), and through bench/report (bench/h2/report.json)
# results.json, report.md and report.html, which open with each proxy against nginx; every h2load output
# in h2load/ (and grpc/: GrpcEcho's build and checks). Bounded: h2load stops by itself (and is killed
# 30 s after its duration), a check after 60 s; everything started is stopped by pid, also on errors.
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
#
# The pieces: options.sh (arguments, tools, the Kodiak measured, ports), services.sh (material, the backend
# and the proxies' configurations), measure.sh (h2load, the preflight, a run's row), results.sh
# (results.md, the report); bench/lib/common.sh loads the shared ones (targets.sh starts and stops services, proc.sh
# samples CPU, rows.sh writes by name), bench/lib/bounded-run.sh runs h2load.
set -euo pipefail
invocation="bin/bench.sh h2${*:+ $*}"

usage() { sed -n '2,48p' "$0" | sed 's/^# \{0,1\}//'; }
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/common.sh
. "$root/bench/lib/common.sh"
for piece in "$root"/bench/lib/{start-command,bounded-run}.sh "$here"/{options,services,measure,results}.sh; do
  # shellcheck source=/dev/null
  . "$piece"
done

parse_options "$@"
ensure_tools
# Built now (npm and Maven, once), so that a missing tool stops the run before it measures, not after.
report_jar >/dev/null || die "the report module (bench/report) did not build"

# ---- the run's directory, ports and the Kodiak measured; everything started is stopped by pid -----------
stamp=$(date -u +%Y%m%d-%H%M%S)
out=$root/target/bench/h2-$stamp
suffix=1
while [ -e "$out" ]; do out=$root/target/bench/h2-$stamp-$((suffix++)); done
mkdir -p "$out/h2load" "$out/logs" "$out/run"
choose_ports
choose_kodiak
rows_open "$out/runs.jsonl" "${H2_FIELDS[@]}"
bench_begin "$out"
targets_init "$out/run" "$out/logs/services.log"
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  bounded_abort
  targets_stop_all
  exit "$rc"
}
trap cleanup EXIT
trap 'echo; log interrupted; exit 130' INT
trap 'log terminated; exit 143' TERM

prepare_material
set_load_args

# run_cells: each cell's unrecorded warm-up per target, then its rounds, the targets in turn.
run_cells() {
  local cell size c m t w ncell=0 round n k pos kodiak_warmed=false
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
    bench_sample_load
  done
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
start_target backend || die "the backend did not start"
for t in "${targets[@]}"; do
  [ "$t" = direct ] && continue   # h2load goes straight to the backend
  log "start $t on ${PORT[$t]}"
  start_target "$t" || die "$t did not start"
done
preflight
started_at=$SECONDS
if [ "$mode" = grpc ]; then
  # The gRPC server is a JVM too: its JIT warmed once, directly, before any cell (not recorded).
  log "warm-up of the gRPC server, directly: ${kodiak_first_warm} s"
  run_h2load direct 100 10 100 "$kodiak_first_warm" "$out/h2load/warm-backend.txt" || log "  warm-up of the gRPC server: h2load exit $?"
fi
run_cells
elapsed=$((SECONDS - started_at))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
log "measured in $((elapsed / 60)) min $((elapsed % 60)) s"

collect_kodiak_warnings
write_results_md "$elapsed"
ln -sfn "$(basename "$out")" "$root/target/bench/latest-h2"
cat "$out/results.md"
write_report || die "the runs are in $out/runs.jsonl, but their report could not be written"
log "results: $out/results.md"
log "report:  $out/report.md, $out/report.html, $out/results.json"
