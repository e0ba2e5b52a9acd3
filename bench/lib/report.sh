# The bench scripts' side of bench/report: build the report jar once, note when a run starts and what
# the machine's load is, then turn the run's TSV of measurements into results.json and render it.
# Sourced, not executed. Every bench writes through bench_report, so every results.json follows
# bench/results.schema.json (bench-report refuses to write one that does not).
#
#   bench_begin OUT_DIR            start time, load average before; load samples go to OUT_DIR/load.txt
#   bench_sample_load              one 1-minute load average sample (call between measurements)
#   bench_report BENCH OUT_DIR "COMMAND" [bench-report results options...]
#                                  results.json, report.md and report.html in OUT_DIR
#   report_tool ARGS...            runs bench-report.jar (render, compare, validate, verdict)

_report_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
_report_dir=$_report_root/bench/report
# shellcheck source=../../bin/lib/daemon.sh
. "$_report_root/bin/lib/daemon.sh"
# shellcheck source=../../bin/lib/packages.sh
. "$_report_root/bin/lib/packages.sh"

# report_jar: builds bench/report when its jar is missing or older than its sources, pom, schema or lock.
report_jar() {
  local jar=$_report_dir/target/bench-report.jar
  if [ ! -f "$jar" ] || [ -n "$(find "$_report_dir/src" "$_report_dir/pom.xml" "$_report_dir/package-lock.json" \
       "$_report_root/bench/results.schema.json" -newer "$jar" -print -quit 2>/dev/null)" ]; then
    echo "bench: building the report module (bench/report)…" >&2
    if [ ! -f "$_report_dir/node_modules/chart.js/package.json" ] || \
       [ "$_report_dir/package-lock.json" -nt "$_report_dir/node_modules/.package-lock.json" ]; then
      # npm fetches the pinned Chart.js once (bench/report/package.json); Debian's npm when it is missing.
      ensure_packages "bench report" npm || return 1
      (cd "$_report_dir" && npm ci --no-audit --no-fund --loglevel=error >&2) || return 1
    fi
    mvn -q -B -f "$_report_dir/pom.xml" package -DskipTests >&2 || return 1
  fi
  echo "$jar"
}

report_tool() {
  local jar java
  jar=$(report_jar) || return 1
  java=$(daemon_java 17) || { echo "bench: the report module needs a JDK 17" >&2; return 1; }
  "$java" -jar "$jar" "$@"
}

bench_begin() {
  BENCH_OUT=$1
  BENCH_STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  BENCH_LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)
  mkdir -p "$BENCH_OUT"
  # Appended to, not emptied: a report remade from a finished run (throughput --report) keeps its samples.
  touch "$BENCH_OUT/load.txt"
}

bench_sample_load() {
  cut -d' ' -f1 /proc/loadavg >>"$BENCH_OUT/load.txt"
}

bench_report() {
  local bench=$1 out=$2 command=$3
  shift 3
  report_tool results --bench "$bench" --spec "$_report_root/bench/$bench/report.json" --out "$out/results.json" \
    --command "$command" --started "${BENCH_STARTED:?bench_begin first}" --load-before "$BENCH_LOAD_BEFORE" \
    --load-samples "$out/load.txt" --repo "$_report_root" "$@" &&
    report_tool render --results "$out/results.json"
}
