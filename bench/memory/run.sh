#!/usr/bin/env bash
# bin/bench.sh memory [--quick] [--counts 0,1000,4000,8000] [--states idle,wait,stream,stall] [--no-nmt] [--alt-opts 'JVM OPTIONS']
#
# What a connection costs Kodiak in memory, on the heap and off it, in each state it can sit in.
# Kodiak runs as shipped (bin/proxy.sh start: its default JVM flags) with bench/memory/kodiak.conf
# (conf/proxy.conf on ports 19701/19781, timeouts long enough to hold connections, an upstream pool
# big enough for every exchange), in front of bench/memory/backend.py (19711). The client,
# bench/memory/load.py (python3 asyncio, its own process), holds N connections in one state:
#   idle    each sent one GET and read its answer, then stays open (keep-alive); the answers were
#           held 3 s by the backend so that all N were in flight at once: N upstream connections
#           sit idle in Kodiak's pool too
#   wait    each sent a GET the backend never answers (a waiting exchange, its upstream connection
#           leased)
#   stream  each reads a body the backend trickles, 1 KiB a second (a streaming exchange whose
#           client keeps up)
#   stall   each asked for a 64 MiB body sent as fast as Kodiak takes it and reads none of it (a
#           client that stopped reading: Kodiak's write queue fills to its bound); always at counts
#           0, 100, 400 (the kernel's socket buffers fill too, and the machine is shared)
# Each state gets a fresh Kodiak, warmed by connections of that state (500; idle 20, stall 50), closed;
# then for each N in --counts, in order: the client closes what it held and opens N in the state, 5 s
# to settle (stall 15 s), then: VmRSS as it is,
# /metrics (kodiak_buffers_pooled_bytes, kodiak_buffers_in_use, jvm_buffer_memory_used_bytes{id=
# "direct"}, kodiak_write_queues_bytes, connections, pool), jcmd GC.class_histogram (a full
# collection: its total is the live heap; kept per point), jcmd GC.run + GC.heap_info (heap used
# after a full collection), VmRSS/RssAnon from /proc after those collections (which touch pages: RSS
# after is higher than before). Then (unless --no-nmt) the idle state again
# at the lowest and highest count with JAVA_OPTS=-XX:NativeMemoryTracking=summary (NMT costs a few
# % of memory itself; the headline figures come from the runs without it): jcmd VM.native_memory
# summary, the JVM's memory by category (heap, classes, threads, code, GC, Other = direct). With
# --alt-opts 'OPTIONS': the idle state once more with JAVA_OPTS=OPTIONS (run "alt": what other JVM
# flags would make of the same connections). RSS is split by /proc/PID/smaps into the Java heap's
# address range (GC.heap_info) and the rest (bench/memory/smaps.py).
# Writes target/bench/memory-<timestamp>/: results.jsonl (one object per state and count),
# per-connection.jsonl (slopes), report.md, histograms/, nmt/, logs/. It measures memory, not speed:
# a busy machine moves the figures little. --quick: counts 0,500,1000, states idle,wait,stream.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../bin/lib/daemon.sh
. "$root/bin/lib/daemon.sh"
# shellcheck source=../../bin/lib/build.sh
. "$root/bin/lib/build.sh"
# shellcheck source=../lib/process-sample.sh
. "$root/bench/lib/process-sample.sh"

usage() { echo "usage: bin/bench.sh memory [--quick] [--counts 0,1000,4000,8000] [--states idle,wait,stream,stall] [--no-nmt] [--alt-opts 'JVM OPTIONS']" >&2; }
args="$*"
counts=0,1000,4000,8000 states=idle,wait,stream,stall nmt=true alt_opts=""
while [ $# -gt 0 ]; do
  case $1 in
    --counts) counts=${2:-}; shift 2 ;;
    --states) states=${2:-}; shift 2 ;;
    --quick) counts=0,500,1000 states=idle,wait,stream; shift ;;
    --no-nmt) nmt=false; shift ;;
    --alt-opts) alt_opts=${2:-}; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) usage; exit 2 ;;
  esac
done
[[ $counts =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "memory: --counts takes whole numbers, comma-separated" >&2; exit 2; }
IFS=, read -r -a count_list <<<"$counts"
IFS=, read -r -a state_list <<<"$states"
for c in "${count_list[@]}"; do
  # Kodiak holds two files per exchange within a 20,000 open-file limit (so does the client, one each).
  [ "$c" -le 9000 ] || { echo "memory: at most 9000 connections (Kodiak holds two files per exchange)" >&2; exit 2; }
done
for s in "${state_list[@]}"; do
  case $s in idle|wait|stream|stall) ;; *) echo "memory: unknown state $s (idle, wait, stream, stall)" >&2; exit 2 ;; esac
done

java17=$(daemon_java 17) || { echo "memory: Java 17 not found" >&2; exit 1; }
jcmd=$(dirname "$java17")/jcmd
[ -x "$jcmd" ] || { echo "memory: jcmd is needed beside $java17" >&2; exit 1; }
python=$(command -v python3) || { echo "memory: python3 is needed" >&2; exit 1; }
command -v curl >/dev/null || { echo "memory: curl is needed" >&2; exit 1; }

port=19701 admin_port=19781 backend_port=19711
for p in $port $admin_port $backend_port; do
  ! daemon_port_open 127.0.0.1 "$p" || { echo "memory: port $p is in use (the bench uses 19701, 19711, 19781)" >&2; exit 1; }
done

stamp=$(date -u +%Y%m%d-%H%M%S)
out=$root/target/bench/memory-$stamp
mkdir -p "$out/logs" "$out/histograms" "$out/nmt" "$out/kodiak"
cp "$here/kodiak.conf" "$out/kodiak/proxy.conf"
log() { echo "[memory $(date -u +%H:%M:%S)] $*"; }

# ---- everything started is stopped by pid on exit --------------------------------------------------
kodiak_marker="-Dkodiak.daemon=proxy:$out/kodiak "
backend_marker="$here/backend.py $backend_port"
load_pid=""
stop_kodiak() {
  if daemon_pid "$out/kodiak/proxy.pid" "$kodiak_marker" >/dev/null; then
    PROXY_BASE=$out/kodiak timeout 60 "$root/bin/proxy.sh" stop >>"$out/logs/proxy.sh.log" 2>&1 || true
  fi
}
cleanup() {
  local pid
  if [ -n "$load_pid" ]; then kill -TERM "$load_pid" 2>/dev/null || true; fi
  stop_kodiak
  if pid=$(daemon_pid "$out/logs/backend.pid" "$backend_marker"); then kill -TERM "$pid" 2>/dev/null || true; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

kodiak_build_if_stale "$root" "$out/logs/build.log" || exit 1
daemon_start backend "$out/logs/backend.pid" "$out/logs/backend.log" "$backend_marker" 127.0.0.1 "$backend_port" 30 -- \
  "$python" "$here/backend.py" "$backend_port" || exit 1

# The client, as a coprocess: a command on its stdin, one answer line on its stdout.
coproc LOAD { exec "$python" "$here/load.py" 127.0.0.1 "$port" 2>>"$out/logs/load.log"; }
load_pid=$LOAD_PID
ask() {   # COMMAND...: the client's answer line
  echo "$*" >&"${LOAD[1]}"
  local answer
  IFS= read -r -t 300 answer <&"${LOAD[0]}" || { echo "memory: the client did not answer '$*'" >&2; exit 1; }
  echo "$answer"
}

path_of() {
  case $1 in
    idle) echo "/fast?delay=3000" ;;
    wait) echo "/hold" ;;
    stream) echo "/stream?size=1073741824&chunk=1024&every=1000" ;;
    stall) echo "/stream?size=67108864&chunk=65536&every=0" ;;
  esac
}
field() { local v; v=$(sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$2"); echo "${v:-0}"; }
num() { [ -n "$1" ] && echo "$1" || echo null; }

# measure STATE N RUN: one line of results.jsonl
measure() {
  local state=$1 n=$2 run=$3 pid answer
  local m="$out/logs/metrics-$run-$state-$n.txt" h="$out/histograms/$run-$state-$n.txt"
  pid=$(daemon_pid "$out/kodiak/proxy.pid" "$kodiak_marker") || { echo "memory: Kodiak is not running" >&2; exit 1; }
  answer=$(ask open "$n" "$(path_of "$state")" "$state")
  log "$run $state N=$n: $answer"
  # A stalled reader's queue fills while the backend pushes as fast as it can: longer to settle.
  if [ "$state" = stall ]; then sleep 15; else sleep 5; fi
  curl -sf -m 20 "http://127.0.0.1:$admin_port/metrics" >"$m" || : >"$m"
  answer=$(ask status)
  local rss_before; rss_before=$(rss_kib "$pid")
  timeout 120 "$jcmd" "$pid" GC.class_histogram >"$h" 2>&1 || true
  local heap rss anon hist_bytes hist_instances
  heap=$(heap_after_gc_kib "$jcmd" "$pid")
  timeout 30 "$jcmd" "$pid" GC.heap_info >"$out/histograms/$run-$state-$n.heap_info" 2>&1 || true
  local heap_rss rest_rss
  read -r heap_rss rest_rss < <("$python" "$here/smaps.py" "$pid" "$out/histograms/$run-$state-$n.heap_info" || echo)
  rss=$(rss_kib "$pid") anon=$(awk '$1 == "RssAnon:" { print $2 }' "/proc/$pid/status")
  read -r hist_instances hist_bytes < <(awk '$1 == "Total" { print $2, $3 }' "$h")
  if [ "$run" = nmt ]; then
    timeout 60 "$jcmd" "$pid" VM.native_memory summary >"$out/nmt/$state-$n.txt" 2>&1 || true
  fi
  prom() { num "$(prom_sum "$m" "$1")"; }
  {
  printf '{"target":"kodiak","scenario":"memory-%s","run":"%s","state":"%s","connections":%s,"opened":%s,"sent":%s,"done":%s,"failed":%s,"streamed_bytes":%s,' \
    "$state" "$run" "$state" "$n" "$(field opened "$answer")" "$(field sent "$answer")" "$(field "done" "$answer")" \
    "$(field failed "$answer")" "$(field bytes "$answer")"
  printf '"heap_after_gc_bytes":%s,"histogram_bytes":%s,"histogram_instances":%s,"rss_bytes":%s,"rss_anon_bytes":%s,' \
    "$(num "${heap:+$((heap * 1024))}")" "$(num "${hist_bytes:-}")" "$(num "${hist_instances:-}")" "$(num "${rss:+$((rss * 1024))}")" "$(num "${anon:+$((anon * 1024))}")"
  printf '"rss_before_gc_bytes":%s,' "$(num "${rss_before:+$((rss_before * 1024))}")"
  printf '"rss_heap_bytes":%s,"rss_rest_bytes":%s,' "$(num "${heap_rss:+$((heap_rss * 1024))}")" "$(num "${rest_rss:+$((rest_rss * 1024))}")"
  printf '"buffers_pooled_bytes":%s,"buffers_in_use":%s,"jvm_direct_bytes":%s,"jvm_direct_buffers":%s,"write_queues_bytes":%s,' \
    "$(prom kodiak_buffers_pooled_bytes)" "$(prom kodiak_buffers_in_use)" \
    "$(num "$(grep -E '^jvm_buffer_memory_used_bytes\{.*id="direct"' "$m" | awk '{ s += $NF } END { if (NR) printf "%.0f", s }')")" \
    "$(num "$(grep -E '^jvm_buffer_count_buffers\{.*id="direct"' "$m" | awk '{ s += $NF } END { if (NR) printf "%.0f", s }')")" \
    "$(prom kodiak_write_queues_bytes)"
  printf '"client_connections":%s,"inflight_exchanges":%s,"pool_open":%s,"pool_idle":%s,"pool_leased":%s,"fds":%s,"threads":%s,"at":"%s","java_opts":"%s"}\n' \
    "$(prom kodiak_client_connections)" "$(prom kodiak_inflight_exchanges)" "$(prom kodiak_upstream_pool_open)" \
    "$(prom kodiak_upstream_pool_idle)" "$(prom kodiak_upstream_pool_leased)" "$(num "$(fds_of "$pid")")" \
    "$(num "$(threads_of "$pid")")" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${JAVA_OPTS:-}"
  } >>"$out/results.jsonl"
}

# run_state RUN STATE COUNT...: a fresh Kodiak (JAVA_OPTS from the caller), warmed, measured at each count
run_state() {
  local run=$1 state=$2 n
  shift 2
  PROXY_CONF=$out/kodiak/proxy.conf PROXY_BASE=$out/kodiak "$root/bin/proxy.sh" start >>"$out/logs/proxy.sh.log" 2>&1 \
    || { tail -n 20 "$out/logs/proxy.sh.log" >&2; exit 1; }
  # Warm-up: idle takes 20 (each leaves an upstream connection in the pool, which the N=0 point
  # would count), stall 50 (each moves 64 MiB), the others 500.
  local warm=500
  case $state in idle) warm=20 ;; stall) warm=50 ;; esac
  log "$run $state: Kodiak started (pid $(daemon_pid "$out/kodiak/proxy.pid" "$kodiak_marker")); warm-up: $(ask open "$warm" "$(path_of "$state")" "$state")"
  ask close >/dev/null
  for n in "$@"; do measure "$state" "$n" "$run"; done
  ask close >/dev/null
  stop_kodiak
  mv "$out/kodiak/logs" "$out/logs/kodiak-$run-$state"
}

log "out: $out; Kodiak as shipped ($(git -C "$root" rev-parse --short HEAD)), counts $counts, states $states; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for state in "${state_list[@]}"; do
  if [ "$state" = stall ]; then
    run_state shipped stall 0 100 400
  else
    run_state shipped "$state" "${count_list[@]}"
  fi
done
if [ "$nmt" = true ]; then
  lo=${count_list[0]} hi=${count_list[${#count_list[@]} - 1]}
  JAVA_OPTS="${JAVA_OPTS:-} -XX:NativeMemoryTracking=summary" run_state nmt idle "$lo" "$hi"
fi
if [ -n "$alt_opts" ]; then
  JAVA_OPTS="$alt_opts" run_state alt idle "${count_list[@]}"
fi

echo quit >&"${LOAD[1]}" || true
wait "$load_pid" 2>/dev/null || true
load_pid=""
"$python" "$here/report.py" "$out" "bin/bench.sh memory $args" "$(git -C "$root" rev-parse --short HEAD)" "$java17"
log "report: $out/report.md"
