#!/usr/bin/env bash
# bin/bench.sh throughput — Kodiak, nginx and HAProxy (and on request Undertow, Vert.x, the relays and Kodiak
# with tracing on) side by side in front of one fast static backend, payload × concurrency with wrk, plus the
# scale runs on a 500 ms upstream. Each proxy's CPU time per request comes from /proc, each JVM's bytes
# allocated per request from JFR. Writes target/bench/<timestamp>/ with runs.jsonl (the raw counters, one
# JSON object per recorded run, fields by name) and, through bench/report, results.json, report.md and
# report.html: the figures are derived from the counters by the formulas of bench/throughput/report.json,
# which also lays out the verdict, tables, charts and the checks against the issues' targets.
#
# The pieces: options.sh (arguments), services.sh (each target's configuration), measure.sh (one recorded
# run), results.sh (the row's fields, the report); bench/lib/common.sh loads the shared ones (targets.sh
# starts and stops services, wrk.sh runs wrk, proc.sh and alloc.sh sample, rows.sh writes by name).
# Usage: bin/bench.sh throughput --help, or docs/throughput.md.
set -euo pipefail
invocation="bin/bench.sh throughput${*:+ $*}"

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/common.sh
. "$root/bench/lib/common.sh"
for piece in options services measure results; do
  # shellcheck source=/dev/null
  . "$here/$piece.sh"
done

parse_options "$@"
java17=$(daemon_java 17) || die "no JDK 17 found (the report module and Kodiak need one)"
# bench/lib/report.sh runs the report module with the java on PATH: make that this JDK 17.
PATH=$(dirname "$java17"):$PATH

if [ -n "$report_only" ]; then
  dir=$(realpath "$report_only")
  [ -f "$dir/runs.jsonl" ] || [ -f "$dir/runs.tsv" ] || die "$dir/runs.jsonl not found (nor a runs.tsv of an older run)"
  ensure_packages "bench throughput" jq || exit 1
  bench_begin "$dir"
  write_report "$dir" "$invocation" || die "could not write the report of $dir"
  print_outcome "$dir"
  exit 0
fi

settle_options
kodiak_home=$(cd "${KODIAK_HOME:-$root}" 2>/dev/null && pwd) || die "KODIAK_HOME=$KODIAK_HOME is not a directory (expected a Kodiak checkout)"
kodiak_launch=${KODIAK_LAUNCH:-auto}
case $kodiak_launch in auto|proxy.sh|java) ;; *) die "KODIAK_LAUNCH must be auto, proxy.sh or java" ;; esac
if [ "$kodiak_launch" = auto ]; then
  kodiak_launch=java
  [ -x "$kodiak_home/bin/proxy.sh" ] && kodiak_launch=proxy.sh
fi
# The daemon as shipped is what bin/proxy.sh starts (its JVM options, conf/logback.xml, PROXY_BASE/logs).
if $as_shipped && [ "$kodiak_launch" != proxy.sh ]; then die "--as-shipped needs Kodiak started by bin/proxy.sh (KODIAK_LAUNCH)"; fi
TARGETS_JAVA=$java17 TARGETS_JAVA_OPTS=${KODIAK_JAVA_OPTS:-} TARGETS_KODIAK_HOME=$kodiak_home TARGETS_KODIAK_LAUNCH=$kodiak_launch

# ---- tools: installed from Debian when missing ------------------------------------------------------
tools=(wrk curl jq)
{ $matrix || in_targets nginx; } && tools+=(nginx)
in_targets haproxy && tools+=(haproxy)
ensure_packages "bench throughput" "${tools[@]}" || exit 1
export PATH=$PATH:/usr/sbin
# Built now (npm and Maven, once), so that a missing tool stops the run before it measures, not after.
report_jar >/dev/null || die "the report module (bench/report) did not build"
hz=$(getconf CLK_TCK)

# ---- the run's directory; everything started is stopped by pid when the run ends ---------------------
stamp=$(date +%Y%m%d-%H%M%S)
out=$root/target/bench/$stamp
suffix=1
while [ -e "$out" ]; do out=$root/target/bench/$stamp-$((suffix++)); done
mkdir -p "$out/logs/wrk" "$out/run"
ln -sfn "$(basename "$out")" "$root/target/bench/latest-throughput"
rows_open "$out/runs.jsonl" "${RUN_FIELDS[@]}"
bench_begin "$out"
targets_init "$out/run" "$out/logs/services.log"

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  wrk_abort
  targets_stop_all
  exit "$rc"
}
trap cleanup EXIT
trap 'echo; progress "interrupted"; exit 130' INT
trap 'progress "terminated"; exit 143' TERM

# With --jfr: a flight recording of Kodiak over the recorded runs of a phase, summarised as text.
jfr_start() {
  $jfr && in_targets kodiak || return 0
  local pid
  pid=$(target_pid "kodiak-$phase") || return 0
  if "$(dirname "$java17")/jcmd" "$pid" JFR.start name=throughput settings=profile "filename=$out/kodiak-$phase.jfr" >>"$out/logs/jfr.log" 2>&1; then
    progress "JFR recording Kodiak (pid $pid) to kodiak-$phase.jfr"
  else
    progress "WARNING: could not start JFR (logs/jfr.log)"
  fi
}

jfr_stop() {
  $jfr && in_targets kodiak || return 0
  local pid
  pid=$(target_pid "kodiak-$phase") || return 0
  "$(dirname "$java17")/jcmd" "$pid" JFR.stop name=throughput >>"$out/logs/jfr.log" 2>&1 || return 0
  if [ -f "$out/kodiak-$phase.jfr" ] &&
      "$java17" "$here/JfrSummary.java" "$out/kodiak-$phase.jfr" >"$out/kodiak-$phase-profile.txt" 2>>"$out/logs/jfr.log"; then
    progress "Kodiak profile: kodiak-$phase-profile.txt"
  fi
}

# Where Kodiak's CPU went over a phase's recorded runs, by thread (numbers in names folded to N).
threads_start() {
  local pid
  in_targets kodiak && pid=$(target_pid "kodiak-$phase") || return 0
  thread_ticks "$pid" >"$out/logs/kodiak-$phase-threads.start"
}

threads_stop() {
  local pid
  in_targets kodiak && [ -f "$out/logs/kodiak-$phase-threads.start" ] && pid=$(target_pid "kodiak-$phase") || return 0
  thread_ticks "$pid" >"$out/logs/kodiak-$phase-threads.end"
  awk -F'\t' -v hz="$hz" -v phase="$phase" '
    NR == FNR { before[$1] = $3; next }
    { name = $2; sub(/[0-9]+$/, "N", name)
      used = $3 - ($1 in before ? before[$1] : 0); if (used < 0) used = 0
      cpu[name] += used; threads[name]++; total += used }
    END {
      printf "Kodiak CPU by thread over the recorded %s runs (and the unrecorded per-cell runs between them): %.1f s in all\n", phase, total / hz
      for (n in cpu) if (cpu[n] > 0) printf "%6.1f %%  %8.1f s  %-18s (%d threads)\n", 100 * cpu[n] / (total ? total : 1), cpu[n] / hz, n, threads[n] | "sort -rn"
    }' "$out/logs/kodiak-$phase-threads.start" "$out/logs/kodiak-$phase-threads.end" >"$out/kodiak-$phase-threads.txt"
  progress "Kodiak CPU by thread: kodiak-$phase-threads.txt"
}

# The order of the targets in round K of a cell: rotated, so no target is always first or last.
rotation() {
  local k=$1 n=${#targets[@]} i
  order=()
  for ((i = 0; i < n; i++)); do order+=("${targets[(i + k) % n]}"); done
}

# run_matrix: every payload × connections cell, the targets alternating run by run.
run_matrix() {
  local per t size c rep pos cell=0 cells=$((${#payloads[@]} * ${#concurrency[@]}))
  phase=matrix
  start_phase
  preflight_matrix
  # JIT and pools warm up before anything is recorded: every payload once per target, same time for all.
  per=$(((warmup + ${#payloads[@]} - 1) / ${#payloads[@]}))
  if ((warmup > 0)); then
    progress "warm-up: ${per}s per payload and target at 80 connections (not recorded)"
    for t in "${targets[@]}"; do for size in "${payloads[@]}"; do warm "$t" "$per" 80 "$size"; done; done
  fi
  warm_jit
  jfr_start
  threads_start
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
        for t in "${order[@]}"; do pos=$((pos + 1)); measure "$t" "$size" "$c" "$rep" "$pos" "$duration"; done
      done
    done
  done
  jfr_stop
  threads_stop
  stop_phase
}

# run_scale: fresh proxies (resident memory reflects the scale runs, not the matrix) on a 500 ms stub each.
run_scale() {
  local t c rep pos cell=0 largest=0
  phase=scale
  start_phase
  preflight_scale
  if ((scale_warmup > 0)); then
    progress "warm-up: ${scale_warmup}s per target at ${scale_conns[0]} connections (not recorded)"
    for t in "${targets[@]}"; do warm "$t" "$scale_warmup" "${scale_conns[0]}" "$SCALE_PAYLOAD" "$STUB_PATH"; done
  fi
  warm_jit
  jfr_start
  threads_start
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
    for c in "${scale_conns[@]}"; do ((c > largest)) && largest=$c; done
    progress "live heap: Kodiak at $largest connections, a class histogram past the middle of one more run"
    heap_probe=true
    measure kodiak "$SCALE_PAYLOAD" "$largest" 1 1 "$scale_duration" "$STUB_PATH"
    heap_probe=false
  fi
  stop_phase
}

# ---- the run ---------------------------------------------------------------------------------------
preflight_notes=() quiet_note="" jit_note="" kodiak_build_note="" kodiak_jar_info="" kodiak_dist="" heap_probe=false
jvm_proxies_classpath=""
started_at=$SECONDS
progress "profile $profile; targets ${targets[*]}; results in $out"
$matrix && progress "matrix: payloads ${payloads[*]} B × connections ${concurrency[*]}; $reps × ${duration}s per target and cell"
$scale && progress "scale: ${scale_conns[*]} connections on a 500 ms stub; $reps × ${scale_duration}s per target"
if in_targets undertow || in_targets vertx; then prepare_jvm_proxies; fi
for t in kodiak kodiak-trace1 kodiak-trace100 relay nio-relay; do
  in_targets "$t" && { prepare_kodiak; progress "Kodiak: $kodiak_jar_info, started with $kodiak_launch"; break; }
done
start_collectors
$matrix && run_matrix
$scale && run_scale
elapsed=$((SECONDS - started_at))
progress "measured in $((elapsed / 60)) min $((elapsed % 60)) s"

describe_run "$elapsed"
write_report "$out" "$invocation" "${facts[@]}" || die "the runs are in $out/runs.jsonl, but their report could not be written"
print_outcome "$out"
