#!/usr/bin/env bash
# bin/bench.sh faults [--quick] [--targets kodiak,nginx,haproxy] [--faults a,b,...] [--connections N]
#
# Fault injection under load. Each proxy in turn stands before the same three servers
# (FaultStub.java on 127.0.0.1:19111-19113, one group) and is loaded by FaultLoad.java: keep-alive
# clients, 60 % GET and 40 % POST with bodies, responses of 0-256 KiB, half chunked, a quarter
# streamed over 200 ms, every answer verified byte by byte against its request's id. Each fault gets
# its own load run: BEFORE s of steady load, the fault for FAULT s, then AFTER s. The faults (all by
# default, in this order):
#   kill     the server on 19112 killed (kill -9) mid-response, restarted at the fault's end
#   stop     that server frozen (SIGSTOP), thawed (SIGCONT) at the end
#   reset    that server sends half of each body then resets the connection (RST)
#   garbage  that server answers bytes that are not HTTP
#   disk     the access log's disk (a 32 MiB tmpfs) filled up, the filler deleted at the end
#   fds      the proxy's open-file limit (soft) lowered to what it holds plus 2, then 64 idle
#            connections opened (most wait in its listen queue), the limit restored at the end
#   burst    a second load with 10x the connections for 10 s (both --quick and not; its requests
#            are judged in the burst row too)
#   hog      a client asks for 100 MiB and never reads (the fault ends when its connection ends)
# Per fault and proxy (report.md, report.html, results.json in target/bench/faults-<timestamp>/):
# requests, ok, failures by (method, status, class), wrong answers, the failures the fault does not
# explain (docs/faults.md), the time from the fault's end until the rate is back to 90 % of before,
# the proxy's RSS and open files before and after (leak check), its CPU and own log lines during the
# fault, whether it still answers, and the load generator's own longest stall. bench/faults/selftest.sh
# checks the judge itself against the server's deliberate wrong answers.
# --quick: 4 s before, 6 s of fault, 6 s after. Otherwise 10, 10, 15.
# Ports 19101-19103 (proxies), 19111-19113 (servers), 19181 (Kodiak admin). Needs root (tmpfs, prlimit).
# Bounded: every load stops by itself; everything started is stopped by pid, the tmpfs unmounted, also on errors.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/common.sh
. "$root/bench/lib/common.sh"
# shellcheck source=../lib/group-proxies.sh
. "$root/bench/lib/group-proxies.sh"

args="$*"
targets=kodiak,nginx,haproxy
all_faults=kill,stop,reset,garbage,disk,fds,burst,hog
faults=$all_faults
connections=12 pause_ms=30
before=10 fault_s=10 after=15
usage="usage: bin/bench.sh faults [--quick] [--targets kodiak,nginx,haproxy] [--faults $all_faults] [--connections N]"
while [ $# -gt 0 ]; do
  case $1 in
    --quick) before=4 fault_s=6 after=6; shift ;;
    --targets) targets=$2; shift 2 ;;
    --faults) faults=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[[ $connections =~ ^[1-9][0-9]{0,2}$ ]] || { echo "faults: --connections takes a whole number from 1 to 999" >&2; exit 2; }
IFS=, read -r -a target_list <<<"$targets"
IFS=, read -r -a fault_list <<<"$faults"
for t in "${target_list[@]}"; do
  case $t in kodiak|nginx|haproxy) ;; *) echo "faults: unknown target '$t' (kodiak, nginx, haproxy)" >&2; exit 2 ;; esac
done
for f in "${fault_list[@]}"; do
  [[ ,$all_faults, == *,$f,* ]] || { echo "faults: unknown fault '$f' ($all_faults)" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "faults: needs root (a tmpfs for the access log, prlimit on the proxy)" >&2; exit 1; }

java17=$(daemon_java 17) || { echo "faults: Java 17 not found" >&2; exit 1; }
needs=(curl)
[[ ,$targets, == *,nginx,* ]] && needs+=(nginx)
[[ ,$targets, == *,haproxy,* ]] && needs+=(haproxy)
ensure_packages faults "${needs[@]}"

stamp=$(date -u +%Y%m%d-%H%M%S)
out=$root/target/bench/faults-$stamp
mkdir -p "$out/logs"
log() { echo "[faults $(date -u +%H:%M:%S)] $*"; }
now_ms() { date +%s%3N; }

declare -A PORT=([kodiak]=19101 [nginx]=19102 [haproxy]=19103)
stub_ports=(19111 19112 19113)
victim=1   # the server on 19112 takes the upstream faults
GP_SERVERS="127.0.0.1:19111 127.0.0.1:19112 127.0.0.1:19113"
GP_RESPONSE_S=3 GP_IDLE_S=5 GP_POOL_IDLE_S=4 GP_ADMIN_PORT=19181
hog_size=$((100 * 1024 * 1024))

# ---- everything started is stopped by pid on exit; the tmpfs is unmounted -------------------------
stubs_dir="" target_now="" target_dir="" mounted="" bg_pids=() restore_limits=()
cleanup() {
  local pid entry
  for pid in ${bg_pids[@]+"${bg_pids[@]}"}; do kill -CONT "$pid" 2>/dev/null; kill -TERM "$pid" 2>/dev/null || true; done
  for entry in ${restore_limits[@]+"${restore_limits[@]}"}; do prlimit --pid "${entry%%=*}" --nofile="${entry#*=}" 2>/dev/null || true; done
  [ -n "$target_now" ] && gp_stop "$target_now" "$target_dir"
  [ -n "$stubs_dir" ] && stop_stubs "$stubs_dir"
  [ -n "$mounted" ] && { umount "$mounted" 2>/dev/null || umount -l "$mounted" 2>/dev/null || true; }
}
# The script's own status survives the cleanup (whose last test may be false).
trap 'rc=$?; cleanup || true; exit $rc' EXIT
trap 'exit 130' INT TERM

stub_marker() { echo "FaultStub ${stub_ports[$1]}"; }
start_stub() {   # DIR INDEX
  daemon_start "server ${stub_ports[$2]}" "$1/stub-$2.pid" "$1/stub-$2.console.log" "$(stub_marker "$2")" 127.0.0.1 "${stub_ports[$2]}" 60 -- \
    "$java17" -Xmx256m -XX:+UseSerialGC -cp "$classes" FaultStub "${stub_ports[$2]}" "$1/stub-$2.log" "s$(($2 + 1))"
}
stub_pid() { daemon_pid "$1/stub-$2.pid" "$(stub_marker "$2")"; }
stop_stubs() {
  local i pid
  for i in 0 1 2; do
    pid=$(stub_pid "$1" "$i") && kill -CONT "$pid" 2>/dev/null
    daemon_stop "server" "$1/stub-$i.pid" "$(stub_marker "$i")" 10 >/dev/null || true
  done
}
stub_mode() { curl -s -m 2 "http://127.0.0.1:${stub_ports[$victim]}/__fault/$1" >/dev/null || true; }

load() {   # PORT CONNECTIONS SECONDS OUT PREFIX [STOP_FILE]
  timeout $(($3 + 40)) "$java17" -Xmx512m -cp "$classes" FaultLoad load "$1" "$2" "$3" "$pause_ms" "$4" "$5" ${6:+"$6"}
}

# ---- one fault: inject at `before`, end it, keep loading for `after` ---------------------------------
# Sets fault_start and fault_end (epoch ms) and note (what the fault itself showed).
inject() {   # FAULT TARGET DIR
  local f=$1 t=$2 dir=$3 pid p soft
  note=""
  fault_start=$(now_ms)
  case $f in
    kill)
      pid=$(stub_pid "$stubs_dir" "$victim") && kill -KILL "$pid"
      wait "$pid" 2>/dev/null || true   # reaped here, so that bash does not report the killed job
      sleep "$fault_s"; start_stub "$stubs_dir" "$victim" ;;
    stop)
      pid=$(stub_pid "$stubs_dir" "$victim") && kill -STOP "$pid"
      sleep "$fault_s"; kill -CONT "$pid" ;;
    reset|garbage)
      stub_mode "$f"; sleep "$fault_s"; stub_mode normal ;;
    disk)
      # Fill what is left of the tmpfs; dd stops at ENOSPC.
      dd if=/dev/zero of="$mounted/filler" bs=64k 2>/dev/null || true
      sleep "$fault_s"; rm -f "$mounted/filler" ;;
    fds)
      # The soft limit lowered to what the proxy holds plus 2, then idle connections opened: the few
      # it can still accept take the last descriptors, the rest wait in its listen queue (the limit
      # reached, with clients waiting). The holder compiles first, so it waits for the signal. Only
      # the soft limit moves (a hard limit once lowered needs a capability to raise again).
      local limited=0 hard held=$dir/fds/held.txt
      timeout $((fault_s + 90)) "$java17" -cp "$classes" FaultLoad hold "${PORT[$t]}" 64 $((fault_s + 60)) "$held" "$held.go" >/dev/null 2>&1 &
      bg_pids+=($!)
      for _ in $(seq 1 300); do [ -f "$held" ] && break; sleep 0.1; done
      fault_start=$(now_ms)
      for p in $(gp_pids "$t" "$dir"); do
        soft=$(prlimit --pid "$p" --nofile --output SOFT --noheadings 2>/dev/null | tr -d ' ') || continue
        hard=$(prlimit --pid "$p" --nofile --output HARD --noheadings | tr -d ' ')
        restore_limits+=("$p=$soft:$hard")
        prlimit --pid "$p" --nofile="$(($(fd_count "$p") + 2)):$hard" && limited=$((limited + 1))
      done
      touch "$held.go"
      sleep "$fault_s"
      for p in ${restore_limits[@]+"${restore_limits[@]}"}; do prlimit --pid "${p%%=*}" --nofile="${p#*=}" || true; done
      restore_limits=()
      kill -TERM "${bg_pids[-1]}" 2>/dev/null || true
      wait "${bg_pids[-1]}" 2>/dev/null || true
      unset 'bg_pids[-1]'
      note="limit lowered on $limited process(es), $(cat "$held" 2>/dev/null || echo 'none held')" ;;
    burst)
      # Its own id prefix: the steady load's ids begin with "burst" (the fault's name).
      load "${PORT[$t]}" $((connections * 10)) 10 "$dir/burst.tsv" extra
      fault_start=$(cat "$dir/burst.tsv.started")
      note=$(awk '{ n++; if ($6 != "ok") ko++; if ($6 ~ /^wrong/) w++ } END { printf "burst requests %d, failed %d, wrong %d", n, ko, w }' "$dir/burst.tsv") ;;
    hog)
      timeout $((fault_s + 60)) "$java17" -cp "$classes" FaultLoad hog "${PORT[$t]}" "$hog_size" "$fault_s" "$dir/hog.txt" &
      bg_pids+=($!)
      sleep $((fault_s / 2))
      note="RSS mid-hog $(rss_kb $(gp_pids "$t" "$dir")) kB"
      wait "${bg_pids[-1]}" || true
      unset 'bg_pids[-1]'
      note+=", hog $(cat "$dir/hog.txt" 2>/dev/null || echo 'no result')" ;;
  esac
  fault_end=$(now_ms)
}

# The disk fault's own outcome: of the run's requests, how many have their line in the access log,
# during the fault and from 1 s after the space was freed (the log should resume by itself).
logged() {   # REQUESTS FAULT_START FAULT_END
  awk -v from="$2" -v to="$3" 'FNR == NR { if ($1 >= from && $1 <= to) during[$4] = 1; else if ($1 > to + 1000) later[$4] = 1; next }
    match($0, /\/r\/disk-[0-9]+-[0-9]+/) { id = substr($0, RSTART + 3, RLENGTH - 3); if (id in during) d++; if (id in later) l++ }
    END { printf "access log lines: during the fault %d of %d, from 1 s after freeing %d of %d", d, length(during), l, length(later) }' \
    "$1" "$GP_ACCESS_LOG"
}

rows=$out/faults.jsonl
: >"$rows"
run_fault() {   # FAULT TARGET
  local f=$1 t=$2 dir=$out/$2/$1 pids rss0 fds0 lpid span alive=0 errlog lines0 cpu0 cpu1
  mkdir -p "$dir"
  pids=$(gp_pids "$t" "$out/$t")
  rss0=$(rss_kb $pids) fds0=$(fd_count $pids)
  # The proxy's own log (HAProxy's goes to the access log): lines it wrote from the fault to the end.
  case $t in kodiak) errlog=$out/$t/logs/kodiak.log ;; nginx) errlog=$out/$t/logs/error.log ;; *) errlog=/dev/null ;; esac
  # The load stops `after` s after the fault's end (a stop file), at most after span s.
  span=$((before + fault_s + after + 60))
  log "$t, $f: ${before}s of load, the fault, ${after}s of load"
  load "${PORT[$t]}" "$connections" "$span" "$dir/requests.tsv" "$f" "$dir/stop" &
  lpid=$!
  bg_pids+=("$lpid")
  for _ in $(seq 1 300); do [ -f "$dir/requests.tsv.started" ] || ! kill -0 "$lpid" 2>/dev/null && break; sleep 0.1; done
  sleep "$before"
  lines0=$(cat "$errlog" 2>/dev/null | wc -l) cpu0=$(cpu_ticks $pids)
  inject "$f" "$t" "$out/$t"
  cpu1=$(cpu_ticks $pids)
  sleep "$after"
  touch "$dir/stop"
  wait "$lpid" || true
  bg_pids=()
  # Connections the load closed are released, pooled upstream connections left idle expire
  # (GP_POOL_IDLE_S), buffered access logs are flushed (1 s): open files compare with before.
  sleep $((GP_POOL_IDLE_S + 2))
  [ "$f" = disk ] && note=$(logged "$dir/requests.tsv" "$fault_start" "$fault_end")
  pids=$(gp_pids "$t" "$out/$t") || true
  if [ -n "$pids" ] && curl -s -f -m 2 -o /dev/null -H 'X-Size: 10' -H 'X-Request-Id: alive' "http://127.0.0.1:${PORT[$t]}/r/alive"; then
    alive=1
  fi
  # The burst's own requests are judged with the steady ones: a failure among them counts too.
  local judged=$dir/requests.tsv stall
  [ "$f" = burst ] && judged+=",$out/$t/burst.tsv"
  stall=$(cat "$dir/requests.tsv.stall" ${judged#*,}.stall 2>/dev/null | sort -n | tail -n 1)
  "$java17" -cp "$classes" FaultLoad summarize "$judged" "$fault_start" "$fault_end" \
    target="$t" scenario="$f" rss_before_kb="$rss0" fds_before="$fds0" load_stall_ms="${stall:-}" \
    rss_after_kb="$(rss_kb $pids)" fds_after="$(fd_count $pids)" alive="$alive" note="${note:-}" \
    cpu_during_pct=$(((cpu1 - cpu0) * 100 * 1000 / $(getconf CLK_TCK) / (fault_end - fault_start + 1))) \
    log_lines=$(($(cat "$errlog" 2>/dev/null | wc -l) - lines0)) >>"$rows"
  [ "$errlog" = /dev/null ] || tail -n +$((lines0 + 1)) "$errlog" >"$dir/proxy-log.txt"
  log "$t, $f: $(tail -n 1 "$rows" | grep -oE '"(requests|ok|unexplained|recovery_ms)":[^,]*' | tr '\n' ' ')"
  bench_sample_load
}

# The server and the load compiled once (a single-file launch compiles at every start: seconds on a
# busy machine, which would shift every fault's timing).
classes=$out/classes
javac=$(dirname "$(readlink -f "$java17")")/javac
"$javac" -d "$classes" "$here/FaultStub.java" "$here/FaultLoad.java" || { echo "faults: javac failed" >&2; exit 1; }

if [[ ,$targets, == *,kodiak,* ]]; then kodiak_build_if_stale "$root" "$out/logs/build.log" || exit 1; fi
bench_begin "$out"
log "targets $targets; faults $faults; $connections connections; ${before}s + ${fault_s}s + ${after}s per fault; load average $BENCH_LOAD_BEFORE"
mounted=$out/alog
mkdir -p "$mounted"
for t in "${target_list[@]}"; do
  mount -t tmpfs -o size=32m tmpfs "$mounted"
  GP_ACCESS_LOG=$mounted/access-$t.log
  : >"$GP_ACCESS_LOG"
  stubs_dir=$out/$t/servers
  mkdir -p "$stubs_dir"
  for i in 0 1 2; do start_stub "$stubs_dir" "$i"; done
  target_now=$t target_dir=$out/$t
  gp_start "$t" "${PORT[$t]}" "$out/$t"
  log "$t: warm-up 5 s"
  load "${PORT[$t]}" "$connections" 5 "$out/$t/warmup.tsv" warm
  sleep $((GP_POOL_IDLE_S + 2))   # as after each fault: the first fault's "before" is comparable
  for f in "${fault_list[@]}"; do run_fault "$f" "$t"; done
  gp_stop "$t" "$out/$t"
  target_now=""
  stop_stubs "$stubs_dir"
  stubs_dir=""
  cp "$GP_ACCESS_LOG" "$out/$t/" 2>/dev/null || true
  umount "$mounted"
done
mounted=""

tools=(java="$java17")
[[ ,$targets, == *,nginx,* ]] && tools+=(nginx="$(command -v nginx || echo /usr/sbin/nginx)")
[[ ,$targets, == *,haproxy,* ]] && tools+=(haproxy="$(command -v haproxy || echo /usr/sbin/haproxy)")
mapfile -t versions < <(version_args "${tools[@]}")
bench_report faults "$out" "bin/bench.sh faults $args" --rows "$rows" "${versions[@]}" \
  --param targets="$targets" --param faults="$faults" --param connections="$connections" \
  --param timeline="per fault: ${before} s of load, the fault for ${fault_s} s (burst: 10 s), then ${after} s"
log "report: $out/report.md"
