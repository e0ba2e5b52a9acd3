#!/usr/bin/env bash
# bin/bench.sh gatling — the 2015 experiment, target after target against one stub, with a report.
# Usage: see usage() in options.sh or docs/bench.md.
#
# The pieces: options.sh (the targets, arguments), services.sh (ports, the services' control scripts, started
# once and stopped after their last target), results.sh (runs.jsonl, the manifest written by name; the
# report); bench/lib/common.sh loads the shared ones, bench/lib/bounded-run.sh runs Maven with a time limit.
set -euo pipefail
invocation="bin/bench.sh gatling${*:+ $*}"

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/common.sh
. "$root/bench/lib/common.sh"
for piece in "$root/bench/lib/bounded-run.sh" "$here"/{options,services,results}.sh; do
  # shellcheck source=/dev/null
  . "$piece"
done

parse_options "$@"
java17=$(daemon_java 17) || die "no JDK 17 found (Gatling and the report need one)"
export JAVA_HOME
JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$java17")")")
command -v mvn >/dev/null || die "Maven (mvn) is not installed"

# ---- the run's directory ---------------------------------------------------------------------------
stamp=$(date +%Y%m%d-%H%M%S)
out=$root/target/bench/$stamp
suffix=1
while [ -e "$out" ]; do out=$root/target/bench/$stamp-$((suffix++)); done
mkdir -p "$out/logs" "$out/gatling" "$out/run"
ln -sfn "$(basename "$out")" "$root/target/bench/latest"
rows_open "$out/runs.jsonl" "${MANIFEST_FIELDS[@]}"
bench_begin "$out"

# ---- cleanup: stop what this run started, by pid, also on Ctrl-C and errors -------------------------
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # The bounded Maven run in progress, if any (Gatling's JVM with it).
  bounded_abort
  stop_services
  exit "$rc"
}
trap cleanup EXIT
trap 'echo; progress "interrupted"; exit 130' INT
trap 'progress "terminated"; exit 143' TERM

# gatling_run LIMIT LOG FOLDER TARGET RAMP HOLD — one Gatling run of TARGET's simulation with the run's
# users and throttle cap, results under $out/FOLDER.
gatling_run() {
  local limit=$1 log=$2 folder=$3 target=$4 run_ramp=$5 run_hold=$6 base_url=() path=/
  if [ "$bench_port_offset" != 0 ]; then
    [ "$target" = stub ] && path=/ProxiedServiceStub/ServiceStubServlet
    base_url=(-Dbench.baseUrl="http://127.0.0.1:$(bench_port "$target")$path")
  fi
  bounded_run "$limit" "$log" - mvn -B -f "$root/pom.xml" -Pgatling gatling:test \
    -Dgatling.simulationClass="io.kodiak.bench.${SIMULATION[$target]}" ${base_url[@]+"${base_url[@]}"} \
    -Dgatling.resultsFolder="$out/$folder" \
    -Dbench.users="$users" -Dbench.rps="$rps" -Dbench.ramp="$run_ramp" -Dbench.hold="$run_hold"
}

# "N requests (KO k), R req/s, p50 a ms, p99 b ms" from Gatling's console summary in LOG.
summarize() {
  local log=$1
  awk '
    /^> request count/ { n = $4; sub(/.*KO=/, ""); ko = $1 + 0 }
    /^> mean requests\/sec/ { rps = $4 }
    /^> response time 50th percentile/ { p50 = $6 }
    /^> response time 99th percentile/ { p99 = $6 }
    END { if (n == "") print "no Gatling summary"; else printf "%s requests (KO %s), %s req/s, p50 %s ms, p99 %s ms\n", n, ko, rps, p50, p99 }
  ' "$log"
}

stub_delay=${STUB_DELAY_MS:-500}
# With every user looping request → pause, users / (service time + mean pause) bounds the rate.
ceiling=$(awk -v u="$users" -v d="$stub_delay" -v r="$rps" 'BEGIN { c = u / ((d + 60) / 1000); if (c > r) c = r; printf "%.1f", c }')
progress "profile $profile: $users users, throttle to $rps req/s over ${ramp}s then ${hold}s; targets: ${targets[*]}"
progress "results in $out"
port_note=""
if [ "$bench_port_offset" != 0 ]; then
  port_note="every contract port moved by BENCH_PORT_OFFSET=$bench_port_offset (stub on $(bench_port stub))"
  progress "$port_note"
fi

# ---- compile once, so that a broken build fails before anything starts -------------------------------
progress "compile the Gatling simulations (mvn -Pgatling test-compile)"
if ! bounded_run 1200 "$out/logs/compile.log" - mvn -B -f "$root/pom.xml" -Pgatling test-compile; then
  echo "bench: compiling the simulations failed; last lines of $out/logs/compile.log:" >&2
  tail -n 30 "$out/logs/compile.log" >&2
  exit 1
fi

progress "build the report module (bench/report) if needed"
report_jar >/dev/null || { echo "bench: the report module (bench/report) does not build" >&2; exit 1; }

start_service stub || exit 1

# ---- one target after another ------------------------------------------------------------------------
run_limit=$((ramp + hold + 30 + 300))   # the simulation's maxDuration plus Maven and report generation
declare -A unavailable=()
for ((i = 0; i < ${#targets[@]}; i++)); do
  target=${targets[i]} service=${SERVICE[${targets[i]}]}
  folder=gatling/$target
  note=""
  if [ -n "${unavailable[$service]:-}" ]; then
    note=${unavailable[$service]}
  elif ! start_service "$service"; then
    script=$(bench_service_script "$service")
    if [ -x "$script" ]; then
      note="$service did not start (see logs/services.log)"
    else
      note="$service is not available yet (${script#"$root"/} missing)"
    fi
    unavailable[$service]=$note
  fi
  if [ -n "$note" ]; then
    progress "skip $target ($((i + 1))/${#targets[@]}): $note"
    record_run "$target" 125 "$folder" "$note"
    continue
  fi

  # The same warm-up for each warmed target, through itself: the JVMs (the stub behind all, Kodiak)
  # compile their hot paths in the first 10-15 s, and a recorded run that starts cold measures the JIT
  # (docs/bench.md). Mule's proxies run cold (WARMED above).
  if [ "$warmup" != 0 ] && [ -n "${WARMED[$target]:-}" ]; then
    progress "warm up $target (${warmup} s, $users users, not recorded)"
    gatling_run $((warmup + 31 + 300)) "$out/logs/warmup-$target.log" "warmup/$target" "$target" 1 "$warmup" \
      || progress "the warm-up of $target did not end cleanly (see logs/warmup-$target.log); going on"
  fi
  progress "run $target ($((i + 1))/${#targets[@]}): ${SIMULATION[$target]}, about $((hold + 15)) s"
  log=$out/logs/gatling-$target.log
  rc=0
  gatling_run "$run_limit" "$log" "$folder" "$target" "$ramp" "$hold" || rc=$?
  case $rc in
    0) verdict=ok ;;
    124|137) verdict="stopped after ${run_limit}s" ;;
    *) grep -q 'assertions failed' "$log" && verdict="failed requests" || verdict="exit $rc" ;;
  esac
  progress "done $target: $(summarize "$log") — $verdict"
  record_run "$target" "$rc" "$folder"
  bench_sample_load

  if [ "$service" != stub ] && ! needed_later "$service" "${targets[@]:i+1}"; then
    progress "stop $service"
    stop_service "$service"
  fi
done

stop_services

# ---- report ------------------------------------------------------------------------------------------
progress "write the report"
write_report || exit 1
if $fail_on_ko; then
  # This run's rows only: the 2015 rows are the article's figures, its failures included.
  report_tool verdict --results "$out/results.json" --where source="this run" || exit 1
fi
