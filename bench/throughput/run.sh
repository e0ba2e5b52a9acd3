#!/usr/bin/env bash
# bin/bench.sh throughput — Kodiak, nginx and HAProxy side by side in front of one fast static backend,
# payload × concurrency with wrk, plus the scale runs on a 500 ms upstream; each proxy's CPU time per
# request comes from /proc. Writes target/bench/<timestamp>/ with runs.tsv (the raw counters, one line per
# recorded run) and, through bench/report, results.json, report.md and report.html: the figures are
# derived from the counters by the formulas of bench/throughput/report.json, which also lays out the
# tables, charts and the checks against the issue's targets.
# Usage: see usage() below or docs/throughput.md.
set -euo pipefail
invocation="bin/bench.sh throughput${*:+ $*}"

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../bin/lib/daemon.sh
. "$root/bin/lib/daemon.sh"
# shellcheck source=../../bin/lib/packages.sh
. "$root/bin/lib/packages.sh"
# shellcheck source=../lib/report.sh
. "$root/bench/lib/report.sh"
# shellcheck source=../lib/proc.sh
. "$root/bench/lib/proc.sh"

ALL_TARGETS=(kodiak nginx haproxy undertow vertx relay nio-relay direct)
# The floors, run only when asked for: TCP relays with no HTTP, on Grizzly's transport (relay,
# GrizzlyRelay.java) and on the JDK's selectors alone (nio-relay, NioRelay.java). The JVM peers a Java
# shop would pick: Undertow's ProxyHandler and vertx-http-proxy (bench/jvm-proxies/).
DEFAULT_TARGETS=(kodiak nginx haproxy undertow vertx direct)
PROXIES=(kodiak nginx haproxy undertow vertx relay nio-relay)
# The path every scale request uses; the proxies forward paths unchanged, so it reaches the stub's servlet.
STUB_PATH=/ProxiedServiceStub/ServiceStubServlet
SCALE_PAYLOAD=512

usage() {
  cat <<USAGE
usage: bin/bench.sh throughput [--quick] [options]

Measures Kodiak, nginx and HAProxy (and the backend direct, the ceiling) with wrk: req/s, latency,
errors, each proxy's CPU time per request and resident memory. Results in target/bench/<timestamp>/.

  --quick               small subset: 512 B and 10 KB × 80 and 640 connections, 1 repetition, 5 s runs,
                        scale 2,000 and 8,000 connections for 8 s (about five minutes in all)
  --payloads LIST       request and response body sizes, e.g. 512,1k,5k,10k,100k (default: these five)
  --concurrency LIST    wrk connections per cell (default: 20,40,80,160,320,640,1280,2560)
  --reps N              measured repetitions per target and cell (default 3; quick 1)
  --duration S          seconds per measured run (default 10; quick 5)
  --warmup S            warm-up per target before the matrix, spread over the payloads (default 20; quick 8)
  --cell-warmup S       unrecorded run per target at the start of each cell (default 2; quick 1; 0: none)
  --jit-warmup S        after the warm-up, keep warming Kodiak in 3 s slices until its JIT compiler threads
                        use under 5 % of its CPU, for at most S seconds (default 60; quick 15; 0: off)
  --targets LIST        among: ${ALL_TARGETS[*]} (default: ${DEFAULT_TARGETS[*]}; direct is the backend
                        without a proxy; undertow and vertx are Undertow's and Vert.x's reverse proxies
                        (bench/jvm-proxies/); relay and nio-relay relay bytes with no HTTP, on Grizzly's transport
                        and on the JDK's selectors: the floors under a proxy built on either, see
                        bench/throughput/GrizzlyRelay.java and NioRelay.java)
  --scale LIST          connections for the scale runs on the 500 ms stub (default 2000,8000); then one more
                        Kodiak run at the largest, for its live heap (a class histogram past its middle)
  --scale-duration S    seconds per scale run (default 20; quick 8)
  --scale-warmup S      warm-up per target before the scale runs (default 15; quick 5)
  --no-matrix           skip payload × concurrency
  --no-scale            skip the scale runs
  --wait-quiet S        before each recorded run, wait up to S seconds for the machine to be at most
                        25 % busy with other work (default 0: do not wait; the report shows it anyway)
  --jfr                 record Kodiak with Java Flight Recorder during each phase's recorded runs and
                        write kodiak-<phase>-profile.txt (hot methods, allocation, GC); costs it ~2 % CPU
  --kodiak-conf FILE    HOCON included after the bench's Kodiak config (its keys win); may repeat
  --no-build            use Kodiak's jar as it is, even when the sources are newer
  --as-shipped          Kodiak as bin/proxy.sh ships it (conf/logback.xml's access log, the admin listener
                        and its metrics on) and nginx with its access log on (nginx's default: a write
                        per request); without it both run with their logs off and Kodiak without metrics
  --report DIR          only remake DIR's results.json, report.md and report.html from DIR/runs.tsv with
                        the current bench/throughput/report.json (the run's description is kept)

Two runs side by side: bin/bench.sh throughput --compare A/results.json B/results.json (every bench has it).

Environment: KODIAK_JAVA_OPTS (extra JVM options for Kodiak), STUB_JAVA_OPTS (for the stubs),
THROUGHPUT_PORT_BASE (default 9700: backend +0, Kodiak +1, nginx +2, HAProxy +3, stubs +10..+13),
KODIAK_LAUNCH=auto|proxy.sh|java (auto: bin/proxy.sh when it exists, else java -jar on a copy of the jar),
KODIAK_HOME (default: this checkout; another checkout's Kodiak is built, launched and reported instead,
as bench/throughput/compare-builds.sh does).
USAGE
}

die() { echo "throughput: $*" >&2; exit 2; }
progress() { echo "[throughput $(date +%H:%M:%S)] $*"; }

# ---- arguments -------------------------------------------------------------------------------------
quick=false matrix=true scale=true build=true report_only="" jfr=false as_shipped=false heap_probe=false
payloads_arg="" conc_arg="" reps="" duration="" warmup="" cell_warmup="" targets_arg="" scale_arg=""
scale_duration="" scale_warmup="" quiet_wait=0 jit_max=""
kodiak_confs=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=true ;;
    --payloads) payloads_arg=${2:?--payloads needs a value}; shift ;;
    --concurrency) conc_arg=${2:?--concurrency needs a value}; shift ;;
    --reps) reps=${2:?--reps needs a value}; shift ;;
    --duration) duration=${2:?--duration needs a value}; shift ;;
    --warmup) warmup=${2:?--warmup needs a value}; shift ;;
    --cell-warmup) cell_warmup=${2:?--cell-warmup needs a value}; shift ;;
    --targets) targets_arg=${2:?--targets needs a value}; shift ;;
    --scale) scale_arg=${2:?--scale needs a value}; shift ;;
    --scale-duration) scale_duration=${2:?--scale-duration needs a value}; shift ;;
    --scale-warmup) scale_warmup=${2:?--scale-warmup needs a value}; shift ;;
    --wait-quiet) quiet_wait=${2:?--wait-quiet needs a value}; shift ;;
    --jit-warmup) jit_max=${2:?--jit-warmup needs a value}; shift ;;
    --no-matrix) matrix=false ;;
    --jfr) jfr=true ;;
    --no-scale) scale=false ;;
    --kodiak-conf) kodiak_confs+=("$(realpath "${2:?--kodiak-conf needs a file}")"); shift ;;
    --no-build) build=false ;;
    --as-shipped) as_shipped=true ;;
    --report) report_only=${2:?--report needs a directory}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
  shift
done

# "512,1k,100k" → "512 1024 102400"
parse_sizes() {
  local item n sizes=() items=()
  IFS=, read -r -a items <<<"$1"
  [ ${#items[@]} -gt 0 ] || return 1
  for item in "${items[@]}"; do
    case ${item,,} in
      *k) n=${item%[kK]}; [[ $n =~ ^[0-9]+$ ]] || return 1; n=$((n * 1024)) ;;
      *) n=$item; [[ $n =~ ^[0-9]+$ ]] || return 1 ;;
    esac
    ((n > 0 && n <= 10485760)) || return 1
    sizes+=("$n")
  done
  echo "${sizes[*]}"
}
parse_counts() {
  local item counts=() items=()
  IFS=, read -r -a items <<<"$1"
  [ ${#items[@]} -gt 0 ] || return 1
  for item in "${items[@]}"; do
    [[ $item =~ ^[1-9][0-9]*$ ]] || return 1
    counts+=("$item")
  done
  echo "${counts[*]}"
}

java17=$(daemon_java 17) || die "no JDK 17 found (the report module and Kodiak need one)"
# bench/lib/report.sh runs the report module with the java on PATH: make that this JDK 17.
PATH=$(dirname "$java17"):$PATH

# ---- the report (bench/report) -----------------------------------------------------------------------
# runs.tsv's fields: what a recorded run counted, as counted (ticks, µs, kB, connections). The formulas
# of bench/throughput/report.json derive the figures from them (req/s, CPU µs per request, ms, MB, ...).
# proxied (0 for direct), upstream_delay_ms (the stub's 500 ms, 0 for the static backend) and
# accounted_ticks (wrk's, the proxy's and the upstream's ticks together) are there for those formulas.
RUN_FIELDS=(phase target scenario size payload connections repetition position planned_s proxied upstream_delay_ms
  requests duration_us bytes err_connect err_read err_write err_status err_timeout
  mean_us p50_us p75_us p90_us p95_us p99_us max_us
  proxy_user_ticks proxy_sys_ticks upstream_ticks wrk_ticks accounted_ticks machine_busy_ticks machine_total_ticks
  wall_us rss_kb fds upstream_connects machine_accepts proxy_jit_ticks proxy_gc_ticks live_heap_kb hz note)

tsv_line() { local IFS=$'\t'; printf '%s\n' "$*"; }

# How the tables name a payload: 512 → "512 B", 10240 → "10 KB".
size_label() { if (($1 >= 1024 && $1 % 1024 == 0)); then echo "$(($1 / 1024)) KB"; else echo "$1 B"; fi; }

# write_report DIR COMMAND [bench_report options...]: DIR/results.json, report.md and report.html from
# DIR/runs.tsv (needs bench_begin first).
write_report() {
  local dir=$1 command=$2 results=$1/results.json rows=$1/logs/report-rows.tsv notes
  shift 2
  mkdir -p "$dir/logs"
  # Tables and charts list the targets in the order the rows first name them, and the runs rotate: sort
  # the rows into ALL_TARGETS' order (target is runs.tsv's second field), each target's runs kept in order.
  { head -n 1 "$dir/runs.tsv"
    tail -n +2 "$dir/runs.tsv" | awk -F'\t' -v order="${ALL_TARGETS[*]}" '
      BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
      { print ($2 in rank ? rank[$2] : n + 1) "\t" NR "\t" $0 }' | sort -t $'\t' -k1,1n -k2,2n | cut -f 3-
  } >"$rows"
  # What went wrong in a run (a service that exited, wrk's exit code, no result) is its note.
  notes=$(awk -F'\t' 'NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
    $col["note"] != "" { printf "%s%s, %s, repetition %s: %s", (n++ ? "; " : ""), $col["scenario"], $col["target"], $col["repetition"], $col["note"] }' "$dir/runs.tsv")
  [ -z "$notes" ] || set -- "$@" --param "notes from the runs=$notes"
  # A remade report keeps the run's own description (command, time, machine, versions).
  [ -f "$results" ] && set -- "$@" --meta-from "$results"
  # report.json names every section and check a full run can fill; the page shows those this run filled.
  bench_report throughput "$dir" "$command" --rows "$rows" "$@" >/dev/null
}

# The checks against the issue's targets as report.md states them, and where the report is.
print_outcome() {
  echo
  awk '/^## / { shown = /Against the targets/ } shown' "$1/report.md"
  echo "report: $1/report.md"
  echo "        $1/report.html"
}


if [ -n "$report_only" ]; then
  dir=$(realpath "$report_only")
  [ -f "$dir/runs.tsv" ] || die "$dir/runs.tsv not found"
  bench_begin "$dir"
  write_report "$dir" "$invocation" || die "could not write the report of $dir"
  print_outcome "$dir"
  exit 0
fi

if $quick; then
  payloads_arg=${payloads_arg:-512,10k} conc_arg=${conc_arg:-80,640}
  reps=${reps:-1} duration=${duration:-5} warmup=${warmup:-8} cell_warmup=${cell_warmup:-1}
  scale_duration=${scale_duration:-8} scale_warmup=${scale_warmup:-5} jit_max=${jit_max:-15}
  profile=quick
else
  payloads_arg=${payloads_arg:-512,1k,5k,10k,100k} conc_arg=${conc_arg:-20,40,80,160,320,640,1280,2560}
  reps=${reps:-3} duration=${duration:-10} warmup=${warmup:-20} cell_warmup=${cell_warmup:-2}
  scale_duration=${scale_duration:-20} scale_warmup=${scale_warmup:-15} jit_max=${jit_max:-60}
  profile=full
fi
scale_arg=${scale_arg:-2000,8000}
[ "$invocation" = "bin/bench.sh throughput" ] || [ "$invocation" = "bin/bench.sh throughput --quick" ] || profile=custom

parsed=$(parse_sizes "$payloads_arg") || die "--payloads: expected sizes such as 512,1k,100k, got '$payloads_arg'"
read -r -a payloads <<<"$parsed"
parsed=$(parse_counts "$conc_arg") || die "--concurrency: expected positive integers, got '$conc_arg'"
read -r -a concurrency <<<"$parsed"
parsed=$(parse_counts "$scale_arg") || die "--scale: expected positive integers, got '$scale_arg'"
read -r -a scale_conns <<<"$parsed"
for n in reps duration warmup cell_warmup scale_duration scale_warmup quiet_wait jit_max; do
  [[ ${!n} =~ ^[0-9]+$ ]] || die "--${n//_/-} must be a whole number of seconds or a count, got '${!n}'"
done
((reps >= 1 && duration >= 1 && scale_duration >= 1)) || die "--reps, --duration and --scale-duration must be at least 1"
for c in "${concurrency[@]}" "${scale_conns[@]}"; do
  ((c >= 2)) || die "connections must be at least 2 (wrk runs two threads)"
  # wrk holds one file per connection and a process may hold $(ulimit -n) here.
  ((c <= $(ulimit -n) - 100)) || die "$c connections do not fit in wrk's $(ulimit -n) open files"
done

targets=()
if [ -z "$targets_arg" ]; then
  targets=("${DEFAULT_TARGETS[@]}")
else
  IFS=, read -r -a requested <<<"$targets_arg"
  for t in "${requested[@]}"; do
    [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || die "unknown target '$t' (known: ${ALL_TARGETS[*]})"
    [[ " ${targets[*]} " == *" $t "* ]] || targets+=("$t")
  done
fi
[ ${#targets[@]} -gt 0 ] || die "no targets"
$matrix || $scale || die "nothing to do (--no-matrix and --no-scale)"
for f in "${kodiak_confs[@]+"${kodiak_confs[@]}"}"; do [ -f "$f" ] || die "--kodiak-conf $f: no such file"; done

port_base=${THROUGHPUT_PORT_BASE:-9700}
if ! [[ $port_base =~ ^[0-9]+$ ]] || ((port_base < 1024 || port_base > 65500)); then
  die "THROUGHPUT_PORT_BASE must be a port number from 1024 to 65500"
fi
declare -A PORT=([backend]=$port_base [kodiak]=$((port_base + 1)) [nginx]=$((port_base + 2)) [haproxy]=$((port_base + 3))
                 [relay]=$((port_base + 4)) [nio-relay]=$((port_base + 5)) [undertow]=$((port_base + 6)) [vertx]=$((port_base + 7)))
declare -A STUB_PORT_OF=([direct]=$((port_base + 10)) [kodiak]=$((port_base + 11)) [nginx]=$((port_base + 12))
                         [haproxy]=$((port_base + 13)) [relay]=$((port_base + 14)) [nio-relay]=$((port_base + 15))
                         [undertow]=$((port_base + 16)) [vertx]=$((port_base + 17)))
kodiak_home=$(cd "${KODIAK_HOME:-$root}" 2>/dev/null && pwd) || die "KODIAK_HOME=$KODIAK_HOME is not a directory (expected a Kodiak checkout)"
kodiak_launch=${KODIAK_LAUNCH:-auto}
case $kodiak_launch in auto|proxy.sh|java) ;; *) die "KODIAK_LAUNCH must be auto, proxy.sh or java" ;; esac
if [ "$kodiak_launch" = auto ]; then
  kodiak_launch=java
  [ -x "$kodiak_home/bin/proxy.sh" ] && kodiak_launch=proxy.sh
fi
# The daemon as shipped is what bin/proxy.sh starts (its JVM options, conf/logback.xml, PROXY_BASE/logs).
if $as_shipped && [ "$kodiak_launch" != proxy.sh ]; then die "--as-shipped needs Kodiak started by bin/proxy.sh (KODIAK_LAUNCH)"; fi
in_targets() { [[ " ${targets[*]} " == *" $1 "* ]]; }

# ---- tools: installed from Debian when missing ------------------------------------------------------
tools=(wrk curl)
{ $matrix || in_targets nginx; } && tools+=(nginx)
in_targets haproxy && tools+=(haproxy)
ensure_packages "bench throughput" "${tools[@]}" || exit 1
export PATH=$PATH:/usr/sbin
# Built now (npm and Maven, once), so that a missing tool stops the run before it measures, not after.
report_jar >/dev/null || die "the report module (bench/report) did not build"
hz=$(getconf CLK_TCK)
ncpu=$(nproc)

# ---- the run's directory ---------------------------------------------------------------------------
stamp=$(date +%Y%m%d-%H%M%S)
out=$root/target/bench/$stamp
suffix=1
while [ -e "$out" ]; do out=$root/target/bench/$stamp-$((suffix++)); done
mkdir -p "$out/logs" "$out/run"
ln -sfn "$(basename "$out")" "$root/target/bench/latest-throughput"
runs=$out/runs.tsv
tsv_line "${RUN_FIELDS[@]}" >"$runs"
bench_begin "$out"

# ---- cleanup: stop what this run started, by pid, also on Ctrl-C and errors -------------------------
started=()   # services started by this run, in start order
job_pid=""   # the bounded wrk run in progress (a subshell around timeout + wrk)

stop_job() {
  [ -n "$job_pid" ] || return 0
  local child
  for child in $(ps -o pid= --ppid "$job_pid" 2>/dev/null); do kill -TERM "$child" 2>/dev/null || true; done
  wait "$job_pid" 2>/dev/null || true
  job_pid=""
}

cleanup() {
  local rc=$? i
  trap - EXIT INT TERM
  stop_job
  for ((i = ${#started[@]} - 1; i >= 0; i--)); do
    service_stop "${started[i]}" || true
  done
  exit "$rc"
}
trap cleanup EXIT
trap 'echo; progress "interrupted"; exit 130' INT
trap 'progress "terminated"; exit 143' TERM

# ---- services --------------------------------------------------------------------------------------
# Each service lives in $out/run/<name>/ and is recorded by pid file plus a marker on its command line.
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
haproxy_bin=$(command -v haproxy || echo /usr/sbin/haproxy)
kodiak_dist=""

# The Kodiak jar Maven builds (not a sources or test jar).
kodiak_jar() {
  local j
  for j in "$kodiak_home"/target/kodiak.jar "$kodiak_home"/target/kodiak-*.jar; do
    [ -f "$j" ] || continue
    case $j in *-sources.jar|*-javadoc.jar|*-tests.jar) continue ;; esac
    echo "$j"
    return 0
  done
  return 1
}

# Builds Kodiak when its jar is missing or older than the sources; keeps a copy of jar and libraries in
# the run's directory, so that a rebuild during the run cannot change the classes under a running JVM.
prepare_kodiak() {
  local jar="" log=$out/logs/build.log
  jar=$(kodiak_jar) || jar=""
  if $build && { [ -z "$jar" ] || [ ! -d "$kodiak_home/target/lib" ] ||
      [ -n "$(find "$kodiak_home/src/main" "$kodiak_home/pom.xml" -newer "$jar" -print -quit 2>/dev/null)" ]; }; then
    progress "build Kodiak: the sources are newer than its jar (mvn -Dmaven.test.skip=true -DskipTlsSuite=true package; logs/build.log)"
    # -DskipTlsSuite: pom.xml's extra test runs set their own skip, which maven.test.skip does not reach.
    if ! JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$java17")")") \
        timeout 900 mvn -B -q -f "$kodiak_home/pom.xml" -Dmaven.test.skip=true -DskipTlsSuite=true package >"$log" 2>&1; then
      jar=$(kodiak_jar) || jar=""
      [ -n "$jar" ] || { tail -n 30 "$log" >&2; die "building Kodiak failed and there is no jar to fall back on"; }
      progress "WARNING: building Kodiak failed (logs/build.log); measuring the existing jar of $(date -r "$jar" '+%F %T')"
      kodiak_build_note="build failed, measured the jar of $(date -r "$jar" '+%F %T')"
    fi
    jar=$(kodiak_jar) || die "no Kodiak jar in target/ after the build"
  fi
  [ -n "$jar" ] || die "no Kodiak jar in target/ (run without --no-build)"
  kodiak_dist=$out/run/kodiak-dist
  mkdir -p "$kodiak_dist/lib"
  cp "$jar" "$kodiak_dist/kodiak.jar"
  cp "$kodiak_home"/target/lib/*.jar "$kodiak_dist/lib/"
  kodiak_jar_info="$(basename "$jar") of $(date -r "$jar" '+%F %T')"
}

# The upstream port of a proxy in the current phase.
upstream_port() {
  if [ "$phase" = matrix ]; then echo "${PORT[backend]}"; else echo "${STUB_PORT_OF[$1]}"; fi
}

start_backend() {
  local base=$out/run/backend size
  mkdir -p "$base/logs" "$base/tmp" "$base/www"
  for size in "${payloads[@]}"; do head -c "$size" /dev/zero | tr '\0' 'b' >"$base/www/$size"; done
  sed -e "s#@BASE@#$base#g" -e "s#@PORT@#${PORT[backend]}#g" "$here/backend.nginx.conf" >"$base/nginx.conf"
  "$nginx_bin" -t -q -p "$base/" -c "$base/nginx.conf" -e "$base/logs/error.log" >>"$base/logs/console.log" 2>&1 \
    || { tail -n 10 "$base/logs/console.log" >&2; return 1; }
  daemon_start "backend (nginx)" "$base/daemon.pid" "$base/logs/console.log" "-p $base/" 127.0.0.1 "${PORT[backend]}" 30 -- \
    "$nginx_bin" -p "$base/" -c "$base/nginx.conf" -e "$base/logs/error.log"
}

start_nginx() {
  local base=$out/run/nginx-$phase
  mkdir -p "$base/logs" "$base/tmp"
  local access_log=off
  # As shipped, nginx logs every request the way its default configuration does: unbuffered, combined format.
  if $as_shipped; then access_log="$base/logs/access.log"; fi
  sed -e "s#@BASE@#$base#g" -e "s#@PORT@#${PORT[nginx]}#g" -e "s#@UPSTREAM_PORT@#$(upstream_port nginx)#g" \
    -e "s#^    access_log off;#    access_log $access_log;#" "$here/nginx.conf" >"$base/nginx.conf"
  "$nginx_bin" -t -q -p "$base/" -c "$base/nginx.conf" -e "$base/logs/error.log" >>"$base/logs/console.log" 2>&1 \
    || { tail -n 10 "$base/logs/console.log" >&2; return 1; }
  daemon_start nginx "$base/daemon.pid" "$base/logs/console.log" "-p $base/" 127.0.0.1 "${PORT[nginx]}" 30 -- \
    "$nginx_bin" -p "$base/" -c "$base/nginx.conf" -e "$base/logs/error.log"
}

start_haproxy() {
  local base=$out/run/haproxy-$phase
  mkdir -p "$base/logs"
  sed -e "s#@PORT@#${PORT[haproxy]}#g" -e "s#@UPSTREAM_PORT@#$(upstream_port haproxy)#g" \
    "$here/haproxy.cfg" >"$base/haproxy.cfg"
  "$haproxy_bin" -c -q -f "$base/haproxy.cfg" >>"$base/logs/console.log" 2>&1 \
    || { tail -n 10 "$base/logs/console.log" >&2; return 1; }
  # -db: foreground without a master process, so the recorded pid is the proxy itself.
  daemon_start haproxy "$base/daemon.pid" "$base/logs/console.log" "-C $base" 127.0.0.1 "${PORT[haproxy]}" 30 -- \
    "$haproxy_bin" -db -C "$base" -f "$base/haproxy.cfg"
}

kodiak_java_opts() {
  # As shipped: bin/proxy.sh's own -Dlogback.configurationFile (conf/logback.xml) stays.
  if $as_shipped; then echo "${KODIAK_JAVA_OPTS:-}"; return; fi
  echo "-Dlogback.configurationFile=$here/logback.xml${KODIAK_JAVA_OPTS:+ $KODIAK_JAVA_OPTS}"
}

start_kodiak() {
  local base=$out/run/kodiak-$phase f
  mkdir -p "$base/logs"
  sed -e "s#@PORT@#${PORT[kodiak]}#g" -e "s#@UPSTREAM_PORT@#$(upstream_port kodiak)#g" "$here/kodiak.conf" >"$base/kodiak.conf"
  if $as_shipped; then
    echo "proxy.admin { enabled = true, host = \"127.0.0.1\", port = $((port_base + 20)) }" >>"$base/kodiak.conf"
  fi
  # Each --kodiak-conf file gets @UPSTREAM_PORT@ filled in too (a route of its own needs the backend's port).
  local n=0
  for f in "${kodiak_confs[@]+"${kodiak_confs[@]}"}"; do
    n=$((n + 1))
    sed -e "s#@UPSTREAM_PORT@#$(upstream_port kodiak)#g" "$f" >"$base/kodiak-extra-$n.conf"
    echo "include file(\"$base/kodiak-extra-$n.conf\")" >>"$base/kodiak.conf"
  done
  if [ "$kodiak_launch" = proxy.sh ]; then
    PROXY_CONF=$base/kodiak.conf PROXY_BASE=$base JAVA_OPTS=$(kodiak_java_opts) "$kodiak_home/bin/proxy.sh" start \
      >>"$base/logs/console.log" 2>&1 || { tail -n 15 "$base/logs/console.log" >&2; return 1; }
    [ -f "$base/proxy.pid" ] || { echo "bin/proxy.sh wrote no $base/proxy.pid" >&2; return 1; }
  else
    local opts=()
    read -r -a opts <<<"$(kodiak_java_opts)"
    daemon_start kodiak "$base/daemon.pid" "$base/logs/console.log" "-c $base/kodiak.conf" 127.0.0.1 "${PORT[kodiak]}" 90 -- \
      "$java17" "${opts[@]}" -jar "$kodiak_dist/kodiak.jar" -c "$base/kodiak.conf"
  fi
}

# A relay (relay: GrizzlyRelay.java on Kodiak's libraries; nio-relay: NioRelay.java) runs from its source
# file with bin/proxy.sh's JVM defaults and the options Kodiak gets.
start_relay() {
  local target=$1 source=GrizzlyRelay.java base=$out/run/$1-$phase opts=()
  [ "$target" = nio-relay ] && source=NioRelay.java
  mkdir -p "$base/logs"
  read -r -a opts <<<"${KODIAK_JAVA_OPTS:-}"
  daemon_start "$target" "$base/daemon.pid" "$base/logs/console.log" "$source ${PORT[$target]}" 127.0.0.1 "${PORT[$target]}" 90 -- \
    "$java17" -Xms256m -Xmx1g -XX:+UseParallelGC ${opts[@]+"${opts[@]}"} -cp "$kodiak_dist/lib/*" \
    "$here/$source" "${PORT[$target]}" "$(upstream_port "$target")"
}

# Undertow's and Vert.x's proxies (bench/jvm-proxies/*.java) run from their source files on that
# module's classpath, with bin/proxy.sh's JVM defaults and the options Kodiak gets.
jvm_proxies_classpath=
prepare_jvm_proxies() {
  local module=$root/bench/jvm-proxies
  progress "build bench/jvm-proxies (Undertow, Vert.x from Maven Central)"
  mvn -q -B -f "$module/pom.xml" package >>"$out/logs/services.log" 2>&1 \
    || die "bench/jvm-proxies did not build; see $out/logs/services.log"
  jvm_proxies_classpath=$(cat "$module/target/classpath.txt")
}

start_jvm_proxy() {
  local target=$1 source=UndertowProxy.java base=$out/run/$1-$phase opts=()
  [ "$target" = vertx ] && source=VertxProxy.java
  mkdir -p "$base/logs"
  read -r -a opts <<<"${KODIAK_JAVA_OPTS:-}"
  daemon_start "$target" "$base/daemon.pid" "$base/logs/console.log" "$source ${PORT[$target]}" 127.0.0.1 "${PORT[$target]}" 90 -- \
    "$java17" -Xms256m -Xmx1g -XX:+UseParallelGC ${opts[@]+"${opts[@]}"} -cp "$jvm_proxies_classpath" \
    "$root/bench/jvm-proxies/$source" "${PORT[$target]}" "$(upstream_port "$target")"
}

start_stub() {
  local target=$1
  STUB_BASE=$out/run/stub-$target STUB_PORT=${STUB_PORT_OF[$target]} STUB_DELAY_MS=500 STUB_MODE=async \
    STUB_HOST=127.0.0.1 JAVA_OPTS=${STUB_JAVA_OPTS:-} "$root/bin/stub.sh" start >>"$out/logs/services.log" 2>&1 \
    || { tail -n 15 "$out/logs/services.log" >&2; return 1; }
}

# The pid file of a service, for CPU and memory accounting.
service_pidfile() {
  case $1 in
    backend) echo "$out/run/backend/daemon.pid" ;;
    stub-*) echo "$out/run/$1/stub.pid" ;;
    kodiak-*) if [ "$kodiak_launch" = proxy.sh ]; then echo "$out/run/$1/proxy.pid"; else echo "$out/run/$1/daemon.pid"; fi ;;
    *) echo "$out/run/$1/daemon.pid" ;;
  esac
}

service_start() {
  local service=$1
  started+=("$service")   # before it is up, so that Ctrl-C during a slow start still stops it
  progress "start $service"
  local rc=0
  case $service in
    backend) start_backend >>"$out/logs/services.log" 2>&1 || rc=$? ;;
    stub-*) start_stub "${service#stub-}" || rc=$? ;;
    kodiak-*) start_kodiak >>"$out/logs/services.log" 2>&1 || rc=$? ;;
    nginx-*) start_nginx >>"$out/logs/services.log" 2>&1 || rc=$? ;;
    haproxy-*) start_haproxy >>"$out/logs/services.log" 2>&1 || rc=$? ;;
    relay-*|nio-relay-*) start_relay "${service%-*}" >>"$out/logs/services.log" 2>&1 || rc=$? ;;
    undertow-*|vertx-*) start_jvm_proxy "${service%-*}" >>"$out/logs/services.log" 2>&1 || rc=$? ;;
  esac
  if [ "$rc" != 0 ]; then
    echo "throughput: $service did not start; last lines of logs/services.log:" >&2
    tail -n 15 "$out/logs/services.log" | sed 's/^/    /' >&2
    return 1
  fi
}

service_stop() {
  local service=$1 remaining=() s
  progress "stop $service"
  case $service in
    stub-*) STUB_BASE=$out/run/$service "$root/bin/stub.sh" stop >>"$out/logs/services.log" 2>&1 || true ;;
    kodiak-*)
      if [ "$kodiak_launch" = proxy.sh ]; then
        PROXY_BASE=$out/run/$service PROXY_CONF=$out/run/$service/kodiak.conf "$kodiak_home/bin/proxy.sh" stop >>"$out/logs/services.log" 2>&1 || true
      else
        daemon_stop kodiak "$out/run/$service/daemon.pid" "-c $out/run/$service/kodiak.conf" 30 >>"$out/logs/services.log" 2>&1 || true
      fi
      ;;
    backend) daemon_stop "backend (nginx)" "$out/run/backend/daemon.pid" "-p $out/run/backend/" 30 >>"$out/logs/services.log" 2>&1 || true ;;
    nginx-*) daemon_stop nginx "$out/run/$service/daemon.pid" "-p $out/run/$service/" 30 >>"$out/logs/services.log" 2>&1 || true ;;
    haproxy-*) daemon_stop haproxy "$out/run/$service/daemon.pid" "-C $out/run/$service" 30 >>"$out/logs/services.log" 2>&1 || true ;;
    relay-*) daemon_stop relay "$out/run/$service/daemon.pid" "GrizzlyRelay.java ${PORT[relay]}" 30 >>"$out/logs/services.log" 2>&1 || true ;;
    nio-relay-*) daemon_stop nio-relay "$out/run/$service/daemon.pid" "NioRelay.java ${PORT[nio-relay]}" 30 >>"$out/logs/services.log" 2>&1 || true ;;
    undertow-*) daemon_stop undertow "$out/run/$service/daemon.pid" "UndertowProxy.java ${PORT[undertow]}" 30 >>"$out/logs/services.log" 2>&1 || true ;;
    vertx-*) daemon_stop vertx "$out/run/$service/daemon.pid" "VertxProxy.java ${PORT[vertx]}" 30 >>"$out/logs/services.log" 2>&1 || true ;;
  esac
  for s in "${started[@]}"; do [ "$s" = "$service" ] || remaining+=("$s"); done
  started=("${remaining[@]+"${remaining[@]}"}")
}

# ---- /proc accounting ------------------------------------------------------------------------------
# A pid and all its descendants (nginx's master and workers; a JVM is one process).
tree_pids() {
  local rootpid=$1
  ps -e -o pid=,ppid= | awk -v r="$rootpid" '
    { parent[$1] = $2 }
    END {
      want[r] = 1; n = 1
      while (n) { n = 0; for (p in parent) if (!(p in want) && (parent[p] in want)) { want[p] = 1; n = 1 } }
      for (p in want) print p
    }'
}

# The root pid of SERVICE, or nothing when it is not running.
service_pid() {
  local f
  f=$(service_pidfile "$1")
  [ -f "$f" ] || return 1
  local pid
  pid=$(tr -dc '0-9' <"$f")
  [ -n "$pid" ] && [ -d "/proc/$pid" ] && echo "$pid"
}

# "user system" clock ticks summed over PIDS (utime and stime cover every thread of a process).
proc_ticks() {
  local u=0 s=0 pid line rest
  local -a f
  for pid in "$@"; do
    read -r line <"/proc/$pid/stat" 2>/dev/null || continue
    rest=${line##*) }
    read -r -a f <<<"$rest"
    u=$((u + f[11])) s=$((s + f[12]))
  done
  echo "$u $s"
}

# Resident kB summed over PIDS.
proc_rss_kb() {
  local total=0 pid key value _
  for pid in "$@"; do
    while read -r key value _; do
      [ "$key" = VmRSS: ] && { total=$((total + value)); break; }
    done <"/proc/$pid/status" 2>/dev/null || true
  done
  echo "$total"
}

proc_fds() {
  local total=0 pid
  local -a entries
  for pid in "$@"; do
    entries=("/proc/$pid/fd/"*)
    [ -e "${entries[0]}" ] && total=$((total + ${#entries[@]}))
  done
  echo "$total"
}

# With --wait-quiet: waits until the machine, with this run's services idle, is at most 25 % busy (others'
# builds and benchmarks), for up to quiet_wait seconds. Sets quiet_note when it gave up.
wait_quiet() {
  quiet_note=""
  ((quiet_wait > 0)) || return 0
  local deadline=$((SECONDS + quiet_wait)) busy a b waited=false
  while :; do
    read -r -a a <<<"$(machine_ticks)"
    sleep 1
    read -r -a b <<<"$(machine_ticks)"
    busy=$((100 * (b[0] - a[0]) / ((b[1] - a[1]) > 0 ? (b[1] - a[1]) : 1)))
    ((busy <= 25)) && { $waited && progress "  the machine is quiet enough (${busy}% busy)"; return 0; }
    if ((SECONDS >= deadline)); then
      quiet_note="machine ${busy}% busy before the run"
      progress "  the machine is still ${busy}% busy with other work after ${quiet_wait}s; measuring anyway"
      return 0
    fi
    $waited || progress "  waiting for the machine to calm down (${busy}% busy with other work)"
    waited=true
  done
}

# What Kodiak (PID) holds live, in kB: jcmd's class histogram, which takes a full collection first,
# so only what is reachable counts. "-" when jcmd cannot attach.
live_heap_kb() {
  { "$(dirname "$java17")/jcmd" "$1" GC.class_histogram 2>/dev/null || true; } \
    | awk '$1 == "Total" { print int($3 / 1024); found = 1 } END { if (!found) print "-" }'
}

# With --jfr: a flight recording of Kodiak over the recorded runs of a phase, summarised as text.
jfr_start() {
  $jfr && in_targets kodiak || return 0
  local pid
  pid=$(service_pid "kodiak-$phase") || return 0
  if "$(dirname "$java17")/jcmd" "$pid" JFR.start name=throughput settings=profile \
      "filename=$out/kodiak-$phase.jfr" >>"$out/logs/jfr.log" 2>&1; then
    progress "JFR recording Kodiak (pid $pid) to kodiak-$phase.jfr"
  else
    progress "WARNING: could not start JFR (logs/jfr.log)"
  fi
}

jfr_stop() {
  $jfr && in_targets kodiak || return 0
  local pid
  pid=$(service_pid "kodiak-$phase") || return 0
  "$(dirname "$java17")/jcmd" "$pid" JFR.stop name=throughput >>"$out/logs/jfr.log" 2>&1 || return 0
  if [ -f "$out/kodiak-$phase.jfr" ] &&
      "$java17" "$here/JfrSummary.java" "$out/kodiak-$phase.jfr" >"$out/kodiak-$phase-profile.txt" 2>>"$out/logs/jfr.log"; then
    progress "Kodiak profile: kodiak-$phase-profile.txt"
  fi
}

# Connections the static backend has accepted so far (nginx stub_status), or "-" outside the matrix.
backend_accepts() {
  [ "$phase" = matrix ] || { echo -; return 0; }
  local status
  status=$(curl -sS --max-time 2 "http://127.0.0.1:${PORT[backend]}/__bench_status" 2>/dev/null) || { echo -; return 0; }
  # Third line: " accepts handled requests"
  awk 'NR == 3 { print $1; found = 1 } END { if (!found) print "-" }' <<<"$status"
}

# TCP connections accepted on this machine so far (PassiveOpens in /proc/net/snmp). Over a run, what is
# left after wrk's own connections and the backend's count is clients reconnecting: a proxy that closed
# connections wrk wanted to keep (or, rarely, someone else's connections).
tcp_accepts() {
  local tag rest seen=0
  local -a f
  while read -r tag rest; do
    [ "$tag" = Tcp: ] || continue
    seen=$((seen + 1))
    if [ "$seen" = 2 ]; then
      read -r -a f <<<"$rest"
      echo "${f[5]}"
      return 0
    fi
  done </proc/net/snmp
  echo -
}

# CPU ticks per thread of PID as "tid<TAB>name<TAB>ticks" lines (JVM threads carry their names here).
thread_ticks() {
  local pid=$1 task line rest name
  local -a f
  for task in /proc/"$pid"/task/*; do
    read -r line <"$task/stat" 2>/dev/null || continue
    name=${line#*(}
    name=${name%)*}
    rest=${line##*) }
    read -r -a f <<<"$rest"
    printf '%s\t%s\t%s\n' "${task##*/}" "$name" $((f[11] + f[12]))
  done
}

# "jit gc" ticks of a JVM: its compiler threads, and its garbage collector threads plus the VM thread
# (safepoints). Compiler threads come and go, so a difference can miss one that exited meanwhile.
jvm_split() {
  local pid=$1 task line name rest jit=0 gc=0
  local -a f
  for task in /proc/"$pid"/task/*; do
    read -r line <"$task/stat" 2>/dev/null || continue
    name=${line#*(}
    name=${name%)*}
    rest=${line##*) }
    read -r -a f <<<"$rest"
    case $name in
      C1\ Compiler* | C2\ Compiler*) jit=$((jit + f[11] + f[12])) ;;
      GC\ Thread* | G1\ * | VM\ Thread) gc=$((gc + f[11] + f[12])) ;;
    esac
  done
  echo "$jit $gc"
}

# Keeps warming Kodiak up, in slices that cycle through the payloads and connection counts, until its
# compiler threads take under 5 % of its CPU in a slice, or jit_max seconds have passed: a JVM still
# compiling is paying a start-up cost that a long-running proxy does not.
warm_jit() {
  in_targets kodiak && ((jit_max > 0)) || return 0
  local pid extra=0 i=0 size conns share=100 a b ta tb
  local -a levels=(80 "${concurrency[-1]}")
  [ "$phase" = scale ] && levels=("${scale_conns[0]}")
  pid=$(service_pid "kodiak-$phase") || return 0
  while ((extra < jit_max)); do
    size=${payloads[i % ${#payloads[@]}]}
    conns=${levels[i % ${#levels[@]}]}
    [ "$phase" = scale ] && size=$SCALE_PAYLOAD
    read -r -a a <<<"$(jvm_split "$pid")"
    read -r -a ta <<<"$(proc_ticks "$pid")"
    if [ "$phase" = scale ]; then warm kodiak 3 "$conns" "$size" "$STUB_PATH"; else warm kodiak 3 "$conns" "$size"; fi
    read -r -a b <<<"$(jvm_split "$pid")"
    read -r -a tb <<<"$(proc_ticks "$pid")"
    extra=$((extra + 3)) i=$((i + 1))
    share=$((100 * (b[0] - a[0]) / ((tb[0] + tb[1] - ta[0] - ta[1]) > 0 ? (tb[0] + tb[1] - ta[0] - ta[1]) : 1)))
    ((share < 0)) && share=0
    ((share < 5)) && break
  done
  jit_note="${jit_note:+$jit_note, }$phase: compiler threads ${share}% of Kodiak's CPU in the last warm-up slice after ${extra}s of JIT warm-up"
  progress "Kodiak JIT: compiler threads at ${share}% of its CPU after ${extra}s of extra warm-up"
}

# Where Kodiak's CPU went over a phase's recorded runs, by thread (numbers in names folded to N).
threads_start() {
  in_targets kodiak || return 0
  local pid
  pid=$(service_pid "kodiak-$phase") || return 0
  thread_ticks "$pid" >"$out/logs/kodiak-$phase-threads.start"
}

threads_stop() {
  in_targets kodiak && [ -f "$out/logs/kodiak-$phase-threads.start" ] || return 0
  local pid
  pid=$(service_pid "kodiak-$phase") || return 0
  thread_ticks "$pid" >"$out/logs/kodiak-$phase-threads.end"
  awk -F'\t' -v hz="$hz" '
    NR == FNR { before[$1] = $3; next }
    {
      name = $2; sub(/[0-9]+$/, "N", name)
      used = $3 - ($1 in before ? before[$1] : 0)
      if (used < 0) used = 0
      cpu[name] += used; threads[name]++; total += used
    }
    END {
      printf "Kodiak CPU by thread over the recorded %s runs (and the unrecorded per-cell runs between them): %.1f s in all\n", phase, total / hz
      for (n in cpu) if (cpu[n] > 0) printf "%6.1f %%  %8.1f s  %-18s (%d threads)\n", 100 * cpu[n] / (total ? total : 1), cpu[n] / hz, n, threads[n] | "sort -rn"
    }' phase="$phase" "$out/logs/kodiak-$phase-threads.start" "$out/logs/kodiak-$phase-threads.end" \
    >"$out/kodiak-$phase-threads.txt"
  progress "Kodiak CPU by thread: kodiak-$phase-threads.txt"
}

# ---- wrk -------------------------------------------------------------------------------------------
# run_wrk LOG CPUFILE SECONDS CONNECTIONS URL PAYLOAD [PATH]: starts a bounded wrk in the background
# (job_pid). The subshell around it reads its own cutime+cstime after waiting for wrk: that is wrk's CPU.
run_wrk() {
  local log=$1 cpufile=$2 seconds=$3 conns=$4 url=$5 payload=$6 path=${7:-}
  (
    rc=0
    timeout -k 5 $((seconds + 60)) wrk -t2 -c "$conns" -d "${seconds}s" --timeout 10s -s "$here/wrk.lua" "$url" \
      -- "$payload" ${path:+"$path"} >"$log" 2>&1 </dev/null || rc=$?
    read -r line <"/proc/$BASHPID/stat"
    rest=${line##*) }
    read -r -a f <<<"$rest"
    echo "$((f[13] + f[14]))" >"$cpufile"
    exit "$rc"
  ) &
  job_pid=$!
}

wait_wrk() {
  local rc=0
  wait "$job_pid" || rc=$?
  job_pid=""
  return "$rc"
}

# Target → URL base, the proxy service (empty for direct) and the upstream service of the current phase.
target_port() { if [ "$1" = direct ]; then upstream_port_direct; else echo "${PORT[$1]}"; fi; }
upstream_port_direct() { if [ "$phase" = matrix ]; then echo "${PORT[backend]}"; else echo "${STUB_PORT_OF[direct]}"; fi; }
proxy_service() { [ "$1" = direct ] || echo "$1-$phase"; }
upstream_service() { if [ "$phase" = matrix ]; then echo backend; else echo "stub-$1"; fi; }

# An unrecorded run (warm-ups).
warm() {
  local target=$1 seconds=$2 conns=$3 payload=$4 path=${5:-} name
  name=$phase-$target-$payload-$conns-warm
  run_wrk "$out/logs/wrk/$name.log" "$out/logs/wrk/$name.cpu" "$seconds" "$conns" \
    "http://127.0.0.1:$(target_port "$target")" "$payload" "$path"
  wait_wrk || true
}

# measure TARGET PAYLOAD CONNS REP POSITION SECONDS [PATH]: one recorded run, one row in runs.tsv.
measure() {
  local target=$1 payload=$2 conns=$3 rep=$4 position=$5 seconds=$6 path=${7:-}
  local row_phase=$phase
  $heap_probe && row_phase=heap
  local name=$row_phase-$target-$payload-$conns-r$rep
  local log=$out/logs/wrk/$name.log cpufile=$out/logs/wrk/$name.cpu
  local proxy_root="" upstream_root="" proxy_pids=() upstream_pids=() note=""
  local svc
  svc=$(proxy_service "$target")
  if [ -n "$svc" ]; then
    proxy_root=$(service_pid "$svc") || note="$svc is not running"
    [ -n "$proxy_root" ] && mapfile -t proxy_pids < <(tree_pids "$proxy_root")
  fi
  upstream_root=$(service_pid "$(upstream_service "$target")") || note="${note:+$note; }upstream is not running"
  [ -n "$upstream_root" ] && mapfile -t upstream_pids < <(tree_pids "$upstream_root")

  local p0 u0 m0 p1 u1 m1 t0 t1 rss=0 r fds=0 half live_heap=-
  wait_quiet
  [ -z "$quiet_note" ] || note="${note:+$note; }$quiet_note"
  read -r -a p0 <<<"$(proc_ticks "${proxy_pids[@]+"${proxy_pids[@]}"}")"
  read -r -a u0 <<<"$(proc_ticks "${upstream_pids[@]+"${upstream_pids[@]}"}")"
  local accepts0 accepts1 jvm0=(- -) jvm1=(- -)
  [ "$target" = kodiak ] && [ -n "$proxy_root" ] && read -r -a jvm0 <<<"$(jvm_split "$proxy_root")"
  accepts0=$(backend_accepts)
  local tcp0 tcp1
  tcp0=$(tcp_accepts)
  read -r -a m0 <<<"$(machine_ticks)"
  t0=${EPOCHREALTIME/./}
  run_wrk "$log" "$cpufile" "$seconds" "$conns" "http://127.0.0.1:$(target_port "$target")" "$payload" "$path"
  # Resident memory is the largest of one-second samples while the connections are open; the open files
  # are sampled once, past the middle of the run.
  # Polled every 0.2 s so that the window ends soon after wrk does.
  # The poll past 60 % of the run, rounded to a sampling poll (every fifth).
  half=$(((seconds * 6 / 10) * 5))
  local polls=0
  while kill -0 "$job_pid" 2>/dev/null; do
    sleep 0.2
    polls=$((polls + 1))
    if [ ${#proxy_pids[@]} -gt 0 ] && ((polls % 5 == 0)); then
      r=$(proc_rss_kb "${proxy_pids[@]}")
      ((r > rss)) && rss=$r
      [ "$polls" = "$half" ] && fds=$(proc_fds "${proxy_pids[@]}")
      [ "$polls" = "$half" ] && $heap_probe && live_heap=$(live_heap_kb "$proxy_root")
    fi
  done
  local wrk_rc=0
  wait_wrk || wrk_rc=$?
  t1=${EPOCHREALTIME/./}
  # Let the proxy finish closing the connections wrk dropped: that work belongs to this run.
  sleep 0.3
  read -r -a p1 <<<"$(proc_ticks "${proxy_pids[@]+"${proxy_pids[@]}"}")"
  read -r -a u1 <<<"$(proc_ticks "${upstream_pids[@]+"${upstream_pids[@]}"}")"
  read -r -a m1 <<<"$(machine_ticks)"
  tcp1=$(tcp_accepts)
  accepts1=$(backend_accepts)
  [ "$target" = kodiak ] && [ -n "$proxy_root" ] && read -r -a jvm1 <<<"$(jvm_split "$proxy_root")"
  local jit=- gc=-
  if [ "${jvm0[0]}" != - ] && [ "${jvm1[0]}" != - ]; then
    jit=$((jvm1[0] - jvm0[0])) gc=$((jvm1[1] - jvm0[1]))
    ((jit >= 0)) || jit=0
  fi
  local connects=-
  # The status request itself is one accepted connection.
  [ "$accepts0" = - ] || [ "$accepts1" = - ] || connects=$((accepts1 - accepts0 - 1))
  if [ ${#proxy_pids[@]} -gt 0 ]; then
    r=$(proc_rss_kb "${proxy_pids[@]}")
    ((r > rss)) && rss=$r
    ((fds > 0)) || fds=$(proc_fds "${proxy_pids[@]}")
  fi

  if [ -n "$proxy_root" ] && ! kill -0 "$proxy_root" 2>/dev/null; then
    note="${note:+$note; }$svc exited during the run"
  fi
  local result wrk_ticks
  result=$(grep -m1 '^RESULT ' "$log" || true)
  wrk_ticks=$(cat "$cpufile" 2>/dev/null || echo 0)
  [ "$wrk_rc" = 0 ] || note="${note:+$note; }wrk exit $wrk_rc"
  [ -n "$result" ] || { note="${note:+$note; }no wrk result: $(tail -n 1 "$log" | tr '\t' ' ')"; result="RESULT"; }
  declare -A v=([requests]=0 [duration_us]=0 [bytes]=0 [connect]=0 [read]=0 [write]=0 [status]=0 [timeout]=0
                [mean_us]=- [p50_us]=- [p75_us]=- [p90_us]=- [p95_us]=- [p99_us]=- [max_us]=-)
  local kv
  for kv in ${result#RESULT}; do v[${kv%%=*}]=${kv#*=}; done
  local pu=- ps=- rss_out=- fds_out=-
  if [ ${#proxy_pids[@]} -gt 0 ]; then
    pu=$((p1[0] - p0[0])) ps=$((p1[1] - p0[1])) rss_out=$rss fds_out=$fds
  fi
  local ut=$(((u1[0] + u1[1]) - (u0[0] + u0[1]))) pt=0
  [ "$pu" = - ] || pt=$((pu + ps))
  local proxied=1 delay_ms=0 scenario machine_accepts=-
  [ "$target" = direct ] && proxied=0
  if $heap_probe; then
    delay_ms=500 scenario="live heap at $conns connections, 500 ms upstream"
  elif [ "$phase" = scale ]; then
    delay_ms=500 scenario="scale $conns connections, 500 ms upstream"
  else
    scenario="matrix $(size_label "$payload") × $conns"
  fi
  [ "$tcp0" = - ] || [ "$tcp1" = - ] || machine_accepts=$((tcp1 - tcp0))
  tsv_line "$row_phase" "$target" "$scenario" "$(size_label "$payload")" "$payload" "$conns" "$rep" "$position" "$seconds" \
    "$proxied" "$delay_ms" "${v[requests]}" "${v[duration_us]}" "${v[bytes]}" \
    "${v[connect]}" "${v[read]}" "${v[write]}" "${v[status]}" "${v[timeout]}" \
    "${v[mean_us]}" "${v[p50_us]}" "${v[p75_us]}" "${v[p90_us]}" "${v[p95_us]}" "${v[p99_us]}" "${v[max_us]}" \
    "$pu" "$ps" "$ut" "$wrk_ticks" "$((pt + ut + wrk_ticks))" "$((m1[0] - m0[0]))" "$((m1[1] - m0[1]))" \
    "$((t1 - t0))" "$rss_out" "$fds_out" "$connects" "$machine_accepts" "$jit" "$gc" "$live_heap" "$hz" "$note" >>"$runs"
  bench_sample_load

  # One progress line: req/s, CPU per request, p99, errors, and how busy the rest of the machine was.
  awk -v t="$target" -v pl="$payload" -v c="$conns" -v rep="$rep" -v reps="$reps_now" -v n="${v[requests]}" -v d="${v[duration_us]}" \
      -v pu="$pu" -v ps="$ps" -v hz="$hz" -v p99="${v[p99_us]}" -v st="${v[status]}" \
      -v se="$((v[connect] + v[read] + v[write] + v[timeout]))" -v rss="$rss_out" \
      -v other="$(((m1[0] - m0[0]) - pt - ut - wrk_ticks))" -v total="$((m1[1] - m0[1]))" -v note="$note" '
    BEGIN {
      rps = d > 0 ? n / (d / 1e6) : 0
      cpu = (pu != "-" && n > 0) ? sprintf("%6.1f µs/req", (pu + ps) * 1e6 / hz / n) : "      —     "
      mem = rss != "-" ? sprintf("%5.0f MB", rss / 1024) : "        "
      printf "  %-9s %7s B × %-5s rep %s/%s  %9.0f req/s  cpu %s  p99 %8.2f ms  errors %s+%s  %s  other-cpu %3.0f%%%s\n",
        t, pl, c, rep, reps, rps, cpu, (p99 == "-" ? 0 : p99 / 1000), st, se, mem,
        (total > 0 ? 100 * other / total : 0), (note != "" ? "  (" note ")" : "")
    }'
}

# ---- preflight: every target answers every payload correctly, on a kept-alive connection ------------
preflight_matrix() {
  local target size url line failed=0
  for target in "${targets[@]}"; do
    for size in "${payloads[@]}"; do
      url="http://127.0.0.1:$(target_port "$target")/$size"
      # Two requests on one connection: both must be 200 with exactly SIZE body bytes, the second reusing it.
      line=$(curl -sS -H 'Expect:' -H 'Content-Type: application/octet-stream' --max-time 10 \
        --data-binary "@$out/run/backend/www/$size" -o /dev/null -o /dev/null \
        -w '%{http_code}:%{size_download}:%{num_connects} ' "$url" "$url" 2>&1) || true
      if [ "$line" != "200:$size:1 200:$size:0 " ]; then
        progress "PREFLIGHT $target $size B: expected '200:$size:1 200:$size:0' (status:bytes:new connections), got '$line'"
        failed=1
        preflight_notes+=("$target $size B: $line")
      fi
    done
  done
  [ "$failed" = 0 ] && progress "preflight: every target returns 200 and the payload's size for every payload, with keep-alive"
  return 0
}

preflight_scale() {
  local target body
  for target in "${targets[@]}"; do
    body=$(curl -sS -H 'Expect:' --max-time 10 --data-binary 'preflight' "http://127.0.0.1:$(target_port "$target")$STUB_PATH" 2>&1) || true
    if [[ $body != preflight-appended\ by\ servlet* ]]; then
      progress "PREFLIGHT scale $target: unexpected answer '${body:0:120}'"
      preflight_notes+=("scale $target: ${body:0:120}")
    fi
  done
}

# The order of the targets in run N of a cell: rotated, so no target is always first or last.
rotation() {
  local k=$1 n=${#targets[@]} i
  order=()
  for ((i = 0; i < n; i++)); do order+=("${targets[(i + k) % n]}"); done
}

# ---- the run ---------------------------------------------------------------------------------------
mkdir -p "$out/logs/wrk"
preflight_notes=()
quiet_note="" jit_note=""
kodiak_build_note="" kodiak_jar_info=""
started_at=$SECONDS
reps_now=$reps

progress "profile $profile; targets ${targets[*]}; results in $out"
if $matrix; then
  progress "matrix: payloads ${payloads[*]} B × connections ${concurrency[*]}; $reps × ${duration}s per target and cell"
fi
if $scale; then
  progress "scale: ${scale_conns[*]} connections on a 500 ms stub; $reps × ${scale_duration}s per target"
fi
if in_targets undertow || in_targets vertx; then
  prepare_jvm_proxies
fi
if in_targets kodiak || in_targets relay; then
  prepare_kodiak
  in_targets kodiak && progress "Kodiak: $kodiak_jar_info, started with $kodiak_launch"
fi

if $matrix; then
  phase=matrix
  service_start backend || exit 1
  for t in "${PROXIES[@]}"; do in_targets "$t" && { service_start "$t-matrix" || exit 1; }; done
  preflight_matrix

  # JIT and pools warm up before anything is recorded: every payload once per target, same time for all.
  per=$(( ${#payloads[@]} > 0 ? (warmup + ${#payloads[@]} - 1) / ${#payloads[@]} : 0 ))
  if ((warmup > 0)); then
    progress "warm-up: ${per}s per payload and target at 80 connections (not recorded)"
    for t in "${targets[@]}"; do
      for size in "${payloads[@]}"; do warm "$t" "$per" 80 "$size"; done
    done
  fi

  warm_jit
  jfr_start
  threads_start
  cell=0
  cells=$((${#payloads[@]} * ${#concurrency[@]}))
  for size in "${payloads[@]}"; do
    for c in "${concurrency[@]}"; do
      cell=$((cell + 1))
      progress "cell $cell/$cells: $size B × $c connections"
      if ((cell_warmup > 0)); then
        rotation "$cell"
        for t in "${order[@]}"; do warm "$t" "$cell_warmup" "$c" "$size"; done
      fi
      for ((rep = 1; rep <= reps; rep++)); do
        rotation $((cell + rep - 1))
        pos=0
        for t in "${order[@]}"; do
          pos=$((pos + 1))
          measure "$t" "$size" "$c" "$rep" "$pos" "$duration"
        done
      done
    done
  done
  jfr_stop
  threads_stop
  for t in "${PROXIES[@]}"; do in_targets "$t" && service_stop "$t-matrix"; done
  service_stop backend
fi

if $scale; then
  phase=scale
  # One stub per target: the idle upstream connections one proxy keeps after its 8,000-connection run would
  # otherwise crowd the next target's connections out of a shared stub's 20,000 files.
  for t in "${targets[@]}"; do service_start "stub-$t" || exit 1; done
  # Fresh proxies, so resident memory reflects the scale runs and not the matrix before them.
  for t in "${PROXIES[@]}"; do in_targets "$t" && { service_start "$t-scale" || exit 1; }; done
  preflight_scale
  if ((scale_warmup > 0)); then
    progress "warm-up: ${scale_warmup}s per target at ${scale_conns[0]} connections (not recorded)"
    for t in "${targets[@]}"; do warm "$t" "$scale_warmup" "${scale_conns[0]}" "$SCALE_PAYLOAD" "$STUB_PATH"; done
  fi
  warm_jit
  jfr_start
  threads_start
  cell=0
  for c in "${scale_conns[@]}"; do
    cell=$((cell + 1))
    progress "scale $cell/${#scale_conns[@]}: $c connections, 500 ms upstream (ceiling $((c * 2)) req/s)"
    for ((rep = 1; rep <= reps; rep++)); do
      rotation $((cell + rep - 1))
      pos=0
      for t in "${order[@]}"; do
        pos=$((pos + 1))
        measure "$t" "$SCALE_PAYLOAD" "$c" "$rep" "$pos" "$scale_duration" "$STUB_PATH"
        # Give the closing connections of one target a moment before the next target's connection storm.
        sleep 1
      done
    done
  done
  jfr_stop
  threads_stop
  # Kodiak's live heap with the most connections in flight: one more run, not among the measured ones
  # (the full collection the histogram takes stalls every exchange for a moment), sampled past its middle.
  if in_targets kodiak; then
    largest=0
    for c in "${scale_conns[@]}"; do ((c > largest)) && largest=$c; done
    progress "live heap: Kodiak at $largest connections, a class histogram past the middle of one more run"
    heap_probe=true
    measure kodiak "$SCALE_PAYLOAD" "$largest" 1 1 "$scale_duration" "$STUB_PATH"
    heap_probe=false
  fi
  for t in "${PROXIES[@]}"; do in_targets "$t" && service_stop "$t-scale"; done
  for t in "${targets[@]}"; do service_stop "stub-$t"; done
fi

elapsed=$((SECONDS - started_at))
progress "measured in $((elapsed / 60)) min $((elapsed % 60)) s"

# ---- report ----------------------------------------------------------------------------------------
# The run's description beside the machine facts bench/report gathers itself (cores, memory, kernel,
# load average before and during, start and end).
commit=$(git -C "$kodiak_home" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$kodiak_home" diff --quiet HEAD -- src pom.xml 2>/dev/null || commit="$commit (with uncommitted changes in src/ or pom.xml)"
matrix_note="" scale_note="" quiet_note_meta=""
$matrix && matrix_note="; matrix runs of ${duration}s after a ${warmup}s warm-up per target and a ${cell_warmup}s unrecorded run per target and cell"
$scale && scale_note="; scale runs of ${scale_duration}s on fresh proxies and one stub per target (500 ms, async), after a ${scale_warmup}s warm-up per target"
((quiet_wait > 0)) && quiet_note_meta="; waiting up to ${quiet_wait}s before each run for a quiet machine"
facts=(
  --param "profile=$profile; ${reps} repetition(s) per target and cell${matrix_note}${scale_note}; measured in $((elapsed / 60)) min $((elapsed % 60)) s"
  --param "load=wrk -t2, keep-alive, POST bodies of the payload size (the backend answers the same size), --timeout 10s; targets alternate within each cell${quiet_note_meta}"
  --param "open files per process=$(ulimit -n)"
  --version "wrk=$(wrk -v 2>&1 | head -n 1 | awk '{print $2}')"
  --version "java=$("$java17" -version 2>&1 | head -n 1)"
)
command -v "$nginx_bin" >/dev/null && facts+=(--version "nginx=$("$nginx_bin" -v 2>&1 | sed 's/.*version: //')")
in_targets haproxy && facts+=(--version "haproxy=$("$haproxy_bin" -v 2>/dev/null | head -n 1 | awk '{print "HAProxy " $3}')")
if in_targets kodiak; then
  facts+=(--param "Kodiak=commit $commit; $kodiak_jar_info; launched with $kodiak_launch${kodiak_build_note:+; $kodiak_build_note}"
          --param "Kodiak JAVA_OPTS=$(kodiak_java_opts)")
  [ ${#kodiak_confs[@]} -eq 0 ] || facts+=(--param "Kodiak extra config=${kodiak_confs[*]}")
  if $as_shipped; then
    facts+=(--param "as shipped=Kodiak with conf/logback.xml (access log on, buffered) and its admin listener and metrics on; nginx with access_log on (unbuffered, its default)")
  fi
  [ -z "$jit_note" ] || facts+=(--param "Kodiak JIT warm-up=$jit_note")
  $jfr && facts+=(--param "JFR=Kodiak recorded with JFR (profile settings) during the recorded runs")
fi
joined() { local all; printf -v all '%s; ' "$@"; echo "${all%; }"; }
[ ${#preflight_notes[@]} -eq 0 ] || facts+=(--param "preflight failures=$(joined "${preflight_notes[@]}")")
write_report "$out" "$invocation" "${facts[@]}" || die "the runs are in $runs, but their report could not be written"
print_outcome "$out"
