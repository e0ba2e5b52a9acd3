# What every bench script loads first: bin/lib's daemon, package and build helpers and bench/lib's
# shared pieces, each sourced once, so a bench names one file instead of repeating the list. Sourced.
#
#   BENCH_ROOT    the checkout the benches run from
#
# The pieces (each file's head says what it offers):
#   bin/lib/daemon.sh, packages.sh, build.sh   start/stop by pid file and marker, Debian packages, the jar
#   bench/lib/report.sh                        results.json, report.md and report.html through bench/report
#   bench/lib/proc.sh                          CPU, memory, files and threads of processes, from /proc
#   bench/lib/wrk.sh                           bounded wrk runs and what they printed
#   bench/lib/versions.sh, request-stats.sh    versions for the meta; FailoverLoad's request lines
#   bench/lib/rows.sh                          results written by name, one JSON object per line
#   bench/lib/targets.sh                       the services a run starts, stopped by pid when it ends
#   bench/lib/alloc.sh                         bytes a JVM allocates over a measured window (JFR)
[ -n "${BENCH_COMMON_LOADED:-}" ] && return 0
BENCH_COMMON_LOADED=1

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../bin/lib/daemon.sh
. "$BENCH_ROOT/bin/lib/daemon.sh"
# shellcheck source=../../bin/lib/packages.sh
. "$BENCH_ROOT/bin/lib/packages.sh"
# shellcheck source=../../bin/lib/build.sh
. "$BENCH_ROOT/bin/lib/build.sh"
# shellcheck source=report.sh
. "$BENCH_ROOT/bench/lib/report.sh"
# shellcheck source=proc.sh
. "$BENCH_ROOT/bench/lib/proc.sh"
# shellcheck source=wrk.sh
. "$BENCH_ROOT/bench/lib/wrk.sh"
# shellcheck source=versions.sh
. "$BENCH_ROOT/bench/lib/versions.sh"
# shellcheck source=request-stats.sh
. "$BENCH_ROOT/bench/lib/request-stats.sh"
# shellcheck source=rows.sh
. "$BENCH_ROOT/bench/lib/rows.sh"
# shellcheck source=targets.sh
. "$BENCH_ROOT/bench/lib/targets.sh"
# shellcheck source=alloc.sh
. "$BENCH_ROOT/bench/lib/alloc.sh"
