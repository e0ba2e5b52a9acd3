#!/usr/bin/env bash
# bin/bench.sh SUBCOMMAND [options] — the benchmarks; results go to target/bench/<timestamp>/.
#   gatling   the 2015 experiment with Gatling, target by target (bench/gatling/run.sh)
#   core      Kodiak against direct (500 ms stub) and nginx (100 B), and the -Xmx64m heap check (bench/core/run.sh)
#   fuzz      Jazzer on the request and response parsers (bench/fuzz/run.sh)
#   failover  one of three servers killed and restarted under load: Kodiak, nginx, HAProxy (bench/failover/run.sh)
#   tls       TLS against nginx: keep-alive CPU per request, full handshakes, TLS to the backend too (bench/tls/run.sh)
#   reload    a configuration reload every second under load: Kodiak, nginx, HAProxy (bench/reload/run.sh)
#   scaleout  two Kodiak instances behind HAProxy in TCP mode, health from /health (bench/scaleout/run.sh)
#   faults    faults injected under load (upstream kill, stop, reset, garbage; disk full, fd limit, burst, a client
#             that never reads): Kodiak, nginx, HAProxy, every answer verified (bench/faults/run.sh)
#   h2        HTTP/2 with h2load: Kodiak, nginx, HAProxy terminating h2c (or h2 over TLS) to one HTTP/1.1 backend, or an h2c
#             one (--backend h2c), or gRPC unary calls to a grpc-java server, also direct (--grpc) (bench/h2/run.sh)
#   soak      an hour (--minutes N) of mixed load with reloads and a server killed every five minutes; heap, memory,
#             files, threads, pools and buffers sampled each minute, their slopes judged (bench/soak/run.sh)
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)

usage() {
  echo "usage: bin/bench.sh gatling [--quick] [--targets a,b,...] [--users N] [--rps N] [--ramp S] [--hold S] [--warmup S] [--fail-on-ko]" >&2
  echo "       bin/bench.sh core [--quick]" >&2
  echo "       bin/bench.sh fuzz [--minutes N]" >&2
  echo "       bin/bench.sh failover [--quick] [--rounds N] [--targets kodiak,nginx,haproxy] [--connections N]" >&2
  echo "       bin/bench.sh reload [--quick] [--rounds N] [--reloads N] [--targets kodiak,nginx,haproxy] [--connections N]" >&2
  echo "       bin/bench.sh scaleout [--quick] [--rounds N] [--connections N] [--seconds N]" >&2
  echo "       bin/bench.sh faults [--quick] [--targets kodiak,nginx,haproxy] [--faults kill,stop,reset,garbage,disk,fds,burst,hog] [--connections N]" >&2
  echo "       bin/bench.sh h2 [--quick] [--rounds N] [--seconds N] [--targets kodiak,nginx,haproxy,direct] [--tls] [--backend http1|h2c] [--grpc]" >&2
  echo "       bin/bench.sh soak [--minutes N] [--quick] [--check] [--rate auto|N]" >&2
  echo "       bin/bench.sh SUBCOMMAND --compare A/results.json B/results.json   two runs side by side" >&2
  echo "       bin/bench.sh SUBCOMMAND --help" >&2
}

command=${1:-}
[ $# -gt 0 ] && shift

# bin/bench.sh BENCH --compare A/results.json B/results.json: two runs side by side, for any bench.
if [ "${1:-}" = --compare ]; then
  [ $# -eq 3 ] || { echo "usage: bin/bench.sh $command --compare A/results.json B/results.json" >&2; exit 2; }
  for f in "$2" "$3"; do
    [ -f "$f" ] || { echo "bin/bench.sh $command --compare: $f is not a file (expected a run's results.json)" >&2; exit 2; }
  done
  # shellcheck source=../bench/lib/report.sh
  . "$root/bench/lib/report.sh"
  out=$root/target/bench/compare-$command-$(date +%Y%m%d-%H%M%S)
  # Each run is named by its directory (A and B when both are called the same).
  label() { basename "$(dirname "$(realpath "$1")")"; }
  label_a=$(label "$2") label_b=$(label "$3")
  [ "$label_a" != "$label_b" ] || { label_a=A label_b=B; }
  report_tool compare "$2" "$3" --bench "$command" --out-dir "$out" --label-a "$label_a" --label-b "$label_b" || exit 1
  cat "$out/compare.md"
  echo "report: $out/compare.md"
  echo "        $out/compare.html"
  exit 0
fi

case $command in
  gatling) exec "$root/bench/gatling/run.sh" "$@" ;;
  core) exec "$root/bench/core/run.sh" "$@" ;;
  throughput) exec "$root/bench/throughput/run.sh" "$@" ;;
  fuzz) exec "$root/bench/fuzz/run.sh" "$@" ;;
  failover) exec "$root/bench/failover/run.sh" "$@" ;;
  tls) exec "$root/bench/tls/run.sh" "$@" ;;
  reload) exec "$root/bench/reload/run.sh" "$@" ;;
  scaleout) exec "$root/bench/scaleout/run.sh" "$@" ;;
  faults) exec "$root/bench/faults/run.sh" "$@" ;;
  h2) exec "$root/bench/h2/run.sh" "$@" ;;
  soak) exec "$root/bench/soak/run.sh" "$@" ;;
  memory) exec "$root/bench/memory/run.sh" "$@" ;;   # memory per connection, by state (bench/memory/run.sh)
  -h|--help|help) usage; exit 0 ;;
  *) usage; exit 2 ;;
esac
