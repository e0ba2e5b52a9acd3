# bench/reload's command line: the options and their defaults (full or --quick), the checks that stop a
# bad argument before anything starts (exit 2), and the ports. Sourced by run.sh; sets targets,
# target_list, connections, rounds, reloads, warmup, baseline, server_warmup, PORT and SERVER_PORTS.

die() { echo "reload: $*" >&2; exit 2; }
log() { echo "[reload $(date -u +%H:%M:%S)] $*"; }
now_ms() { date +%s%3N; }
in_targets() { [[ ,$targets, == *,$1,* ]]; }

parse_options() {
  targets=kodiak,nginx,haproxy connections=16 rounds=3 reloads=60
  warmup=15 baseline=15 server_warmup=5
  while [ $# -gt 0 ]; do
    case $1 in
      --quick) warmup=5 baseline=5 server_warmup=3 reloads=15 rounds=1; shift ;;
      --rounds) rounds=${2:-}; shift 2 ;;
      --reloads) reloads=${2:-}; shift 2 ;;
      --targets) targets=${2:-}; shift 2 ;;
      --connections) connections=${2:-}; shift 2 ;;
      -h|--help) usage; exit 0 ;;
      *) echo "usage: bin/bench.sh reload [--quick] [--rounds N] [--reloads N] [--targets kodiak,nginx,haproxy] [--connections N]" >&2; exit 2 ;;
    esac
  done
  [[ $connections =~ ^[1-9][0-9]*$ ]] || die "--connections takes a positive whole number"
  [[ $rounds =~ ^[1-9][0-9]?$ ]] || die "--rounds takes a whole number from 1 to 99"
  [[ $reloads =~ ^[1-9][0-9]{0,2}$ ]] || die "--reloads takes a whole number from 1 to 999"
  IFS=, read -r -a target_list <<<"$targets"
  local t
  for t in "${target_list[@]}"; do
    case $t in kodiak|nginx|haproxy) ;; *) die "unknown target '$t' (kodiak, nginx, haproxy)" ;; esac
  done
  # RELOAD_PORT_BASE (default 9600) moves every port (bench/lib/failover-servers.sh).
  bench_ports RELOAD_PORT_BASE 9600
}
