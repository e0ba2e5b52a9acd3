#!/usr/bin/env bash
# bin/bench.sh gatling — the 2015 experiment, target after target against one stub, with a report.
# Usage: see usage() below or docs/bench.md.
set -euo pipefail
invocation="bin/bench.sh gatling${*:+ $*}"

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../bin/lib/daemon.sh
. "$root/bin/lib/daemon.sh"
# shellcheck source=services.sh
. "$here/services.sh"
# shellcheck source=../lib/report.sh
. "$root/bench/lib/report.sh"
# shellcheck source=../lib/versions.sh
. "$root/bench/lib/versions.sh"

ALL_TARGETS=(stub kodiak mule-pattern mule-jetty mule-jetty-nocont mule-http mule-http-nonpersistent nginx haproxy)
declare -A SIMULATION=(
  [stub]=StubDirectSimulation [kodiak]=KodiakSimulation
  [mule-pattern]=MulePatternSimulation [mule-jetty]=MuleJettySimulation
  [mule-jetty-nocont]=MuleJettyNoContinuationsSimulation [mule-http]=MuleHttpPersistentSimulation
  [mule-http-nonpersistent]=MuleHttpNonPersistentSimulation [nginx]=NginxSimulation [haproxy]=HaproxySimulation
)
declare -A LABEL=(
  [stub]="stub direct (8080)" [kodiak]="Kodiak (9401)"
  [mule-pattern]="Mule pattern proxy (9101)" [mule-jetty]="Mule Jetty, continuations (9201)"
  [mule-jetty-nocont]="Mule Jetty, no continuations (9202)" [mule-http]="Mule new HTTP, persistent (9301)"
  [mule-http-nonpersistent]="Mule new HTTP, non-persistent (9302)" [nginx]="nginx (9501)" [haproxy]="HAProxy (9601)"
)
# Targets warmed up before their recorded run. The five Mule proxies run cold, as in 2015: their old
# connectors still hold a warm-up's unfinished exchanges (10-60 s timeouts) when the recorded run starts;
# after one, Mule Jetty without continuations failed all 200 of its requests (0 of 2,211 cold).
declare -A WARMED=([stub]=1 [kodiak]=1 [nginx]=1 [haproxy]=1)
declare -A SERVICE=(
  [stub]=stub [kodiak]=kodiak [mule-pattern]=mule [mule-jetty]=mule [mule-jetty-nocont]=mule
  [mule-http]=mule [mule-http-nonpersistent]=mule [nginx]=nginx [haproxy]=haproxy
)

usage() {
  cat <<USAGE
usage: bin/bench.sh gatling [--quick] [--targets a,b,...] [--users N] [--rps N] [--ramp S] [--hold S] [--warmup S] [--fail-on-ko]

Runs the 2015 Gatling scenario against each target in turn (one stub for all) and writes
target/bench/<timestamp>/ with results.json, report.md and report.html.

  --quick        smoke profile: 50 users, 150 req/s cap, 5 s ramp + 15 s hold (default: the original,
                 200 users, 600 req/s cap, 20 s ramp + 60 s hold; 10x: --users 2000 --rps 6000)
  --targets      comma-separated, in the order to run (default: all):
                 ${ALL_TARGETS[*]}
  --users N      virtual users, all started at once
  --rps N        throttle cap reached at the end of the ramp
  --ramp S       throttle ramp in seconds
  --hold S       throttle hold in seconds; each user loops this long
  --warmup S     before the recorded run of stub, kodiak, nginx and haproxy, S seconds of the same users
                 and throttle through that target, not recorded, so that no JVM (the stub, Kodiak) is
                 measured while its JIT compiles; the Mule proxies always run cold, as in 2015;
                 0 = none (default 15; 0 with --quick)
  --fail-on-ko   exit 1 when any request of any target failed or a target produced no results
USAGE
}

die() { echo "bench: $*" >&2; exit 2; }
progress() { echo "[bench $(date +%H:%M:%S)] $*"; }

# ---- arguments -------------------------------------------------------------------------------------
quick=false fail_on_ko=false targets_arg="" users="" rps="" ramp="" hold="" warmup=""
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=true ;;
    --fail-on-ko) fail_on_ko=true ;;
    --targets) targets_arg=${2:?--targets needs a value}; shift ;;
    --users) users=${2:?--users needs a value}; shift ;;
    --rps) rps=${2:?--rps needs a value}; shift ;;
    --ramp) ramp=${2:?--ramp needs a value}; shift ;;
    --hold) hold=${2:?--hold needs a value}; shift ;;
    --warmup) warmup=${2:?--warmup needs a value}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
  shift
done
for n in users rps ramp hold; do
  [ -z "${!n}" ] || [[ ${!n} =~ ^[1-9][0-9]*$ ]] || die "--$n must be a positive integer, got '${!n}'"
done
[ -z "$warmup" ] || [[ $warmup =~ ^(0|[1-9][0-9]*)$ ]] || die "--warmup must be 0 or a positive integer, got '$warmup'"
if $quick; then
  users=${users:-50} rps=${rps:-150} ramp=${ramp:-5} hold=${hold:-15} warmup=${warmup:-0} profile=quick
else
  users=${users:-200} rps=${rps:-600} ramp=${ramp:-20} hold=${hold:-60} warmup=${warmup:-15} profile=custom
  [ "$users/$rps/$ramp/$hold" = 200/600/20/60 ] && profile=original
  [ "$users/$rps/$ramp/$hold" = 2000/6000/20/60 ] && profile=10x
fi

targets=()
if [ -z "$targets_arg" ]; then
  targets=("${ALL_TARGETS[@]}")
else
  IFS=, read -r -a requested <<<"$targets_arg"
  for t in "${requested[@]}"; do
    [ -n "${SIMULATION[$t]:-}" ] || die "unknown target '$t' (known: ${ALL_TARGETS[*]})"
    [[ " ${targets[*]} " == *" $t "* ]] || targets+=("$t")
  done
fi
[ ${#targets[@]} -gt 0 ] || die "no targets"

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
manifest=$out/runs.tsv
: >"$manifest"
bench_begin "$out"

# ---- cleanup: stop what this run started, by pid, also on Ctrl-C and errors -------------------------
started=()      # services started by this run, in start order
job_pid=""      # the bounded Maven run in progress, if any

stop_service() {
  local service=$1 remaining=() s
  bench_service_ctl "$service" "$out/run" stop >>"$out/logs/services.log" 2>&1 \
    || echo "bench: stopping $service failed; see $out/logs/services.log" >&2
  for s in "${started[@]}"; do [ "$s" = "$service" ] || remaining+=("$s"); done
  started=("${remaining[@]+"${remaining[@]}"}")
}

cleanup() {
  local rc=$? i
  trap - EXIT INT TERM
  if [ -n "$job_pid" ] && kill -0 "$job_pid" 2>/dev/null; then
    # timeout(1) runs Maven in its own process group and passes the signal on to the whole group,
    # which includes the Gatling JVM that Maven forked.
    kill -TERM "$job_pid" 2>/dev/null || true
    wait "$job_pid" 2>/dev/null || true
  fi
  for ((i = ${#started[@]} - 1; i >= 0; i--)); do
    progress "stop ${started[i]}"
    stop_service "${started[i]}"
  done
  exit "$rc"
}
trap cleanup EXIT
trap 'echo; progress "interrupted"; exit 130' INT
trap 'progress "terminated"; exit 143' TERM

# run_bounded SECONDS LOG COMMAND... — runs COMMAND with a hard time limit, output to LOG, in the
# background so that the traps above can stop it.
run_bounded() {
  local seconds=$1 log=$2 rc=0
  shift 2
  timeout -k 20 "$seconds" "$@" >"$log" 2>&1 </dev/null &
  job_pid=$!
  wait "$job_pid" || rc=$?
  job_pid=""
  return "$rc"
}

start_service() {
  local service=$1
  [[ " ${started[*]} " == *" $service "* ]] && return 0
  [ -x "$(bench_service_script "$service")" ] || return 1
  progress "start $service"
  # Recorded before it is up, so that Ctrl-C during a slow start still stops it.
  started+=("$service")
  if ! bench_service_ctl "$service" "$out/run" start >>"$out/logs/services.log" 2>&1; then
    echo "bench: $service did not start; last lines of $out/logs/services.log:" >&2
    tail -n 15 "$out/logs/services.log" | sed 's/^/    /' >&2
    stop_service "$service"
    return 1
  fi
}

needed_later() {
  local service=$1 t
  shift
  for t in "$@"; do [ "${SERVICE[$t]}" = "$service" ] && return 0; done
  return 1
}

# gatling_run LIMIT LOG FOLDER TARGET RAMP HOLD — one Gatling run of TARGET's simulation with the run's
# users and throttle cap, results under $out/FOLDER.
gatling_run() {
  local limit=$1 log=$2 folder=$3 target=$4 run_ramp=$5 run_hold=$6 base_url=() path=/
  if [ "$bench_port_offset" != 0 ]; then
    [ "$target" = stub ] && path=/ProxiedServiceStub/ServiceStubServlet
    base_url=(-Dbench.baseUrl="http://127.0.0.1:$(bench_port "$target")$path")
  fi
  run_bounded "$limit" "$log" mvn -B -f "$root/pom.xml" -Pgatling gatling:test \
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
if ! run_bounded 1200 "$out/logs/compile.log" mvn -B -f "$root/pom.xml" -Pgatling test-compile; then
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
    printf '%s\t%s\t%s\t%s\t%s\n' "$target" "${LABEL[$target]}" 125 "$folder" "$note" >>"$manifest"
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
  printf '%s\t%s\t%s\t%s\n' "$target" "${LABEL[$target]}" "$rc" "$folder" >>"$manifest"
  bench_sample_load

  if [ "$service" != stub ] && ! needed_later "$service" "${targets[@]:i+1}"; then
    progress "stop $service"
    stop_service "$service"
  fi
done

for ((j = ${#started[@]} - 1; j >= 0; j--)); do
  progress "stop ${started[j]}"
  stop_service "${started[j]}"
done

# ---- report ------------------------------------------------------------------------------------------
progress "write the report"
# The runs as rows (Gatling's js/global_stats.json and simulation.log), then results.json, report.md and
# report.html through the report module, with the 2015 article's figures as rows of their own.
report_tool gatling-rows --manifest "$manifest" --scenario "$profile" --out "$out/rows.tsv" || exit 1
# What ran, as each program says it: the JDK, Gatling (its simulation.log's RUN record), the peers.
versions=(--version java="$(version_of java "$java17")")
gatling_version=$(awk -F'\t' '$1 == "RUN" { print $6; exit }' "$out"/gatling/*/*/simulation.log 2>/dev/null || true)
[ -z "$gatling_version" ] || versions+=(--version gatling="$gatling_version")
for t in "${targets[@]}"; do
  case $t in
    mule-*) versions+=(--version mule="3.6.0 CE") ;;
    nginx|haproxy) bin=$(command -v "$t" 2>/dev/null || echo "/usr/sbin/$t")
      [ ! -x "$bin" ] || versions+=(--version "$t=$(version_of "$t" "$bin")") ;;
  esac
done
params=(--param profile="$profile" --param users="$users" --param rps_cap="$rps" --param ramp_s="$ramp"
  --param hold_s="$hold" --param warmup_s="$warmup" --param stub_delay_ms="$stub_delay" --param stub_mode="${STUB_MODE:-async}"
  --param ceiling_rps="$ceiling")
[ -z "$port_note" ] || params+=(--param ports="$port_note")
echo
bench_report gatling "$out" "$invocation" --rows "$out/rows.tsv" --rows "$here/reference-2015.tsv" \
  "${versions[@]}" "${params[@]}" || exit 1
awk '/^## Per target/ { table = 1 } /^## Beside/ { table = 0 } table && /^\|/' "$out/report.md"
echo
echo "report: $out/report.md"
echo "        $out/report.html"

if $fail_on_ko; then
  # This run's rows only: the 2015 rows are the article's figures, its failures included.
  report_tool verdict --results "$out/results.json" --where source="this run" || exit 1
fi
