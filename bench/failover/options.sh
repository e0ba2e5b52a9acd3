# bench/failover's command line: the options and their defaults (full or --quick), the checks that stop a
# bad argument before anything starts (exit 2), and the ports. Sourced by run.sh; sets targets,
# target_list, connections, rounds, warmup, kill_at, restart_at, duration, PORT, SERVER_PORTS and victim.

die() { echo "failover: $*" >&2; exit 2; }
log() { echo "[failover $(date -u +%H:%M:%S)] $*"; }
now_ms() { date +%s%3N; }
in_targets() { [[ ,$targets, == *,$1,* ]]; }

parse_options() {
  targets=kodiak,nginx,haproxy connections=32 rounds=3
  warmup=15 kill_at=20 restart_at=40 duration=60
  while [ $# -gt 0 ]; do
    case $1 in
      --quick) warmup=5 kill_at=8 restart_at=16 duration=24 rounds=1; shift ;;
      --rounds) rounds=${2:-}; shift 2 ;;
      --targets) targets=${2:-}; shift 2 ;;
      --connections) connections=${2:-}; shift 2 ;;
      -h|--help) usage; exit 0 ;;
      *) echo "usage: bin/bench.sh failover [--quick] [--rounds N] [--targets kodiak,nginx,haproxy] [--connections N]" >&2; exit 2 ;;
    esac
  done
  [[ $connections =~ ^[1-9][0-9]*$ ]] || die "--connections takes a positive whole number"
  [[ $rounds =~ ^[1-9][0-9]?$ ]] || die "--rounds takes a whole number from 1 to 99"
  IFS=, read -r -a target_list <<<"$targets"
  local t
  for t in "${target_list[@]}"; do
    case $t in kodiak|nginx|haproxy) ;; *) die "unknown target '$t' (kodiak, nginx, haproxy)" ;; esac
  done
  # FAILOVER_PORT_BASE (default 9700) moves every port (bench/lib/failover-servers.sh).
  bench_ports FAILOVER_PORT_BASE 9700
  victim=1   # index into SERVER_PORTS: the middle one
}
