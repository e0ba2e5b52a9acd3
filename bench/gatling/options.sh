# bench/gatling's command line: the targets (their simulation, label, service and whether they are warmed),
# the usage text, the options and their defaults (the original 2015 profile, or --quick), and the checks
# that stop a bad argument before anything starts (exit 2). Sourced by run.sh; sets targets, users, rps,
# ramp, hold, warmup, profile and fail_on_ko.

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

parse_options() {
  local quick=false targets_arg="" requested=() t n
  fail_on_ko=false users="" rps="" ramp="" hold="" warmup=""
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
}
