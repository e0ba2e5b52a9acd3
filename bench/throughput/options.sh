# bench/throughput's command line: the usage text, the options and their defaults (full or --quick), the
# checks that stop a bad argument before anything starts (exit 2), the targets and their ports. Sourced by
# run.sh; sets the variables run.sh and the other pieces read (targets, payloads, concurrency, ...).

ALL_TARGETS=(kodiak kodiak-trace1 kodiak-trace100 nginx haproxy undertow vertx relay nio-relay direct)
# The floors (relay, nio-relay) and the tracing variants of Kodiak run only when asked for.
DEFAULT_TARGETS=(kodiak nginx haproxy undertow vertx direct)
# Targets on a JVM: their bytes allocated per request are measured (bench/lib/alloc.sh).
JVM_TARGETS=(kodiak kodiak-trace1 kodiak-trace100 undertow vertx relay nio-relay)
# Kodiak with tracing on, exporting to a collector of its own (bench/lib/otlp-sink.py): the sampler of each.
declare -A TRACE_SAMPLER=([kodiak-trace1]=0.01 [kodiak-trace100]=1.0)

usage() {
  cat <<USAGE
usage: bin/bench.sh throughput [--quick] [options]

Measures Kodiak, nginx and HAProxy (and the backend direct, the ceiling) with wrk: req/s, latency,
errors, each proxy's CPU time per request, resident memory, and the bytes each JVM target allocates per
request. Results in target/bench/<timestamp>/.

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
  --targets LIST        among: ${ALL_TARGETS[*]}
                        (default: ${DEFAULT_TARGETS[*]}). direct is the backend without a proxy;
                        undertow and vertx are Undertow's and Vert.x's reverse proxies (bench/jvm-proxies/);
                        relay and nio-relay relay bytes with no HTTP, on Grizzly's transport and on the JDK's
                        selectors (GrizzlyRelay.java, NioRelay.java); kodiak-trace1 and kodiak-trace100 are
                        Kodiak with proxy.tracing on at sampler 0.01 and 1.0, exporting to a collector that
                        runs during the bench
  --scale LIST          connections for the scale runs on the 500 ms stub (default 2000,8000); then one more
                        Kodiak run at the largest, for its live heap (a class histogram past its middle)
  --scale-duration S    seconds per scale run (default 20; quick 8)
  --scale-warmup S      warm-up per target before the scale runs (default 15; quick 5)
  --no-matrix           skip payload × concurrency
  --no-scale            skip the scale runs
  --no-alloc            do not record the JVM targets' allocation (JFR, started and stopped around each run)
  --wait-quiet S        before each recorded run, wait up to S seconds for the machine to be at most
                        25 % busy with other work (default 0: do not wait; the report shows it anyway)
  --jfr                 record Kodiak with Java Flight Recorder during each phase's recorded runs and
                        write kodiak-<phase>-profile.txt (hot methods, allocation, GC); costs it ~2 % CPU
  --kodiak-conf FILE    HOCON included after the bench's Kodiak config (its keys win); may repeat
  --no-build            use Kodiak's jar as it is, even when the sources are newer
  --as-shipped          Kodiak as bin/proxy.sh ships it (conf/logback.xml's access log, the admin listener
                        and its metrics on) and nginx with its access log on (nginx's default: a write
                        per request); without it both run with their logs off and Kodiak without metrics
  --report DIR          only remake DIR's results.json, report.md and report.html from DIR/runs.jsonl with
                        the current bench/throughput/report.json (the run's description is kept)

Two runs side by side: bin/bench.sh throughput --compare A/results.json B/results.json (every bench has it).

Environment: KODIAK_JAVA_OPTS (extra JVM options for Kodiak), STUB_JAVA_OPTS (for the stubs),
THROUGHPUT_PORT_BASE (default 9700: backend +0, proxies +1..+9, stubs +10..+19, Kodiak's admin listeners
+20, +23, +24 with --as-shipped, trace collectors +25, +26),
KODIAK_LAUNCH=auto|proxy.sh|java (auto: bin/proxy.sh when it exists, else java -jar on a copy of the jar),
KODIAK_HOME (default: this checkout; another checkout's Kodiak is built, launched and reported instead,
as bench/throughput/compare-builds.sh does).
USAGE
}

die() { echo "throughput: $*" >&2; exit 2; }
progress() { echo "[throughput $(date +%H:%M:%S)] $*"; }

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

parse_options() {
  quick=false matrix=true scale=true build=true report_only="" jfr=false as_shipped=false alloc=true
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
      --no-scale) scale=false ;;
      --no-alloc) alloc=false ;;
      --jfr) jfr=true ;;
      --kodiak-conf) kodiak_confs+=("$(realpath "${2:?--kodiak-conf needs a file}")"); shift ;;
      --no-build) build=false ;;
      --as-shipped) as_shipped=true ;;
      --report) report_only=${2:?--report needs a directory}; shift ;;
      -h|--help) usage; exit 0 ;;
      *) usage >&2; die "unknown argument: $1" ;;
    esac
    shift
  done
}

# The defaults of the profile, then every value checked; run only when measuring (not for --report).
settle_options() {
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

  local parsed n c t requested=()
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
      is_one_of "$t" "${ALL_TARGETS[@]}" || die "unknown target '$t' (known: ${ALL_TARGETS[*]})"
      in_targets "$t" || targets+=("$t")
    done
  fi
  [ ${#targets[@]} -gt 0 ] || die "no targets"
  $matrix || $scale || die "nothing to do (--no-matrix and --no-scale)"
  for t in "${kodiak_confs[@]+"${kodiak_confs[@]}"}"; do [ -f "$t" ] || die "--kodiak-conf $t: no such file"; done
  settle_ports
}

settle_ports() {
  port_base=${THROUGHPUT_PORT_BASE:-9700}
  if ! [[ $port_base =~ ^[0-9]+$ ]] || ((port_base < 1024 || port_base > 65500)); then
    die "THROUGHPUT_PORT_BASE must be a port number from 1024 to 65500"
  fi
  local b=$port_base
  declare -gA PORT=([backend]=$b [kodiak]=$((b + 1)) [nginx]=$((b + 2)) [haproxy]=$((b + 3)) [relay]=$((b + 4))
    [nio-relay]=$((b + 5)) [undertow]=$((b + 6)) [vertx]=$((b + 7)) [kodiak-trace1]=$((b + 8)) [kodiak-trace100]=$((b + 9)))
  declare -gA STUB_PORT_OF=([direct]=$((b + 10)))
  declare -gA ADMIN_PORT=([kodiak]=$((b + 20)) [kodiak-trace1]=$((b + 23)) [kodiak-trace100]=$((b + 24)))
  declare -gA COLLECTOR_PORT=([kodiak-trace1]=$((b + 25)) [kodiak-trace100]=$((b + 26)))
  local t
  for t in "${!PORT[@]}"; do [ "$t" = backend ] || STUB_PORT_OF[$t]=$((PORT[$t] + 10)); done
}

is_one_of() { local x=$1; shift; [[ " $* " == *" $x "* ]]; }
in_targets() { is_one_of "$1" "${targets[@]+"${targets[@]}"}"; }
is_jvm_target() { is_one_of "$1" "${JVM_TARGETS[@]}"; }
is_kodiak() { [ "$1" = kodiak ] || [ -n "${TRACE_SAMPLER[$1]:-}" ]; }
