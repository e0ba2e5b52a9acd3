#!/usr/bin/env bash
# Capacity check of the stub alone: can it carry 2,000 keep-alive clients at a 500 ms delay without being the
# bottleneck (ceiling = clients / delay = 4,000 req/s)? Starts its own stub on a free port, warms it up, measures
# one bounded wrk run, reports req/s against the ceiling, errors, p99 and the stub's CPU time per request, and
# stops the stub again. Exit 0 when >= 95 % of the ceiling with zero errors, 1 otherwise.
#
# Environment (all optional): BENCH_CONNECTIONS (2000), BENCH_DURATION (20, seconds), BENCH_WARMUP (5, seconds),
# BENCH_THREADS (2, wrk threads), STUB_DELAY_MS (500), STUB_MODE (async), STUB_THREADS, JAVA_OPTS.
set -euo pipefail

# shellcheck source=../bin/lib/daemon.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../bin/lib/daemon.sh"
# shellcheck source=../bin/lib/packages.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../bin/lib/packages.sh"
BENCH_DIR=$(daemon_script_dir "${BASH_SOURCE[0]}")
REPO_DIR=$(cd "$BENCH_DIR/.." && pwd)
STUB_SH=$REPO_DIR/bin/stub.sh

CONNECTIONS=${BENCH_CONNECTIONS:-2000}
DURATION=${BENCH_DURATION:-20}
WARMUP=${BENCH_WARMUP:-5}
WRK_THREADS=${BENCH_THREADS:-2}
export STUB_DELAY_MS=${STUB_DELAY_MS:-500}
export STUB_MODE=${STUB_MODE:-async}
export STUB_HOST=127.0.0.1

for setting in CONNECTIONS DURATION WARMUP WRK_THREADS STUB_DELAY_MS; do
  if ! [[ ${!setting} =~ ^[0-9]{1,9}$ ]]; then
    echo "stub-capacity: $setting='${!setting}' is not valid: expected a non-negative integer" >&2
    exit 2
  fi
done
if ((DURATION < 1 || CONNECTIONS < 1 || WRK_THREADS < 1 || STUB_DELAY_MS < 1)); then
  echo "stub-capacity: duration, connections, wrk threads and STUB_DELAY_MS must be at least 1" >&2
  exit 2
fi

ensure_packages stub-capacity wrk || exit 1

OUT_DIR=$REPO_DIR/target/stub-capacity/$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT_DIR"
export STUB_BASE=$OUT_DIR

# A port below the ephemeral range (32768+), where wrk's own 2,000 client sockets live.
pick_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 12000))
    daemon_port_open 127.0.0.1 "$port" || { echo "$port"; return 0; }
  done
  echo "stub-capacity: found no free port" >&2
  return 1
}
export STUB_PORT
STUB_PORT=$(pick_port)

stop_stub() {
  "$STUB_SH" stop >/dev/null 2>&1 || true
}
trap stop_stub EXIT

"$STUB_SH" start
PID=$(cat "$STUB_BASE/stub.pid")
URL=http://127.0.0.1:$STUB_PORT/ProxiedServiceStub/ServiceStubServlet

# The original Gatling request; done() prints one machine-readable line so no human-oriented output is parsed.
cat >"$OUT_DIR/post.lua" <<'EOF'
wrk.method = "POST"
wrk.body = "test1"
wrk.headers["Content-Type"] = "text/plain"
wrk.headers["Accept"] = "text/plain"

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d duration_us=%d connect=%d read=%d write=%d status=%d timeout=%d p50_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
EOF

run_wrk() {
  local seconds=$1 output=$2
  # wrk stops itself after -d; timeout is only a backstop should it hang.
  timeout $((seconds + 60)) wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${seconds}s" --timeout 2s \
    -s "$OUT_DIR/post.lua" "$URL" >"$output" 2>&1
}

# "utime stime" of PID in clock ticks (fields 14 and 15; field 2 may contain spaces, so cut after its ')').
cpu_ticks() {
  local stat
  stat=$(<"/proc/$1/stat")
  stat=${stat##*) }
  awk '{ print $12, $13 }' <<<"$stat"
}

field() {
  sed -n "s/.*[ ]$1=\([0-9]*\).*/\1/p" "$OUT_DIR/wrk.txt"
}

if ((WARMUP > 0)); then
  echo "warming up: wrk -t$WRK_THREADS -c$CONNECTIONS -d${WARMUP}s …"
  run_wrk "$WARMUP" "$OUT_DIR/wrk-warmup.txt"
fi

echo "measuring: wrk -t$WRK_THREADS -c$CONNECTIONS -d${DURATION}s --timeout 2s -s post.lua $URL"
read -r user_before system_before < <(cpu_ticks "$PID")
run_wrk "$DURATION" "$OUT_DIR/wrk.txt"
read -r user_after system_after < <(cpu_ticks "$PID")
threads=$(awk '/^Threads:/ { print $2 }' "/proc/$PID/status")

if ! grep -q '^RESULT ' "$OUT_DIR/wrk.txt"; then
  echo "stub-capacity: wrk produced no result; its output:" >&2
  cat "$OUT_DIR/wrk.txt" >&2
  exit 1
fi

requests=$(field requests)
duration_us=$(field duration_us)
socket_errors=$(($(field connect) + $(field read) + $(field write) + $(field timeout)))
status_errors=$(field status)
ticks_per_second=$(getconf CLK_TCK)

verdict=$(awk -v req="$requests" -v dur="$duration_us" -v conns="$CONNECTIONS" -v delay="$STUB_DELAY_MS" \
  -v user_ticks=$((user_after - user_before)) -v sys_ticks=$((system_after - system_before)) -v hz="$ticks_per_second" -v p50="$(field p50_us)" -v p99="$(field p99_us)" \
  -v errs=$((socket_errors + status_errors)) 'BEGIN {
    rps = req / (dur / 1e6); ceiling = conns * 1000 / delay; share = 100 * rps / ceiling
    per_request = req > 0 ? 1e6 / hz / req : 0
    printf "rps=%.0f ceiling=%.0f share=%.1f p50_ms=%.1f p99_ms=%.1f cpu_us=%.1f user_us=%.1f system_us=%.1f ok=%d\n",
      rps, ceiling, share, p50 / 1000, p99 / 1000, (user_ticks + sys_ticks) * per_request, user_ticks * per_request,
      sys_ticks * per_request, (share >= 95 && errs == 0) }')
value() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" <<<"$verdict"; }

{
  echo "stub capacity, $(date '+%Y-%m-%d %H:%M:%S'), mode $STUB_MODE, delay $STUB_DELAY_MS ms, $CONNECTIONS keep-alive clients, ${DURATION}s after ${WARMUP}s warm-up"
  echo "  requests:       $requests"
  echo "  req/s:          $(value rps) of a $(value ceiling) ceiling ($(value share) %)"
  echo "  errors:         $socket_errors socket (connect/read/write/timeout), $status_errors non-2xx/3xx"
  echo "  latency:        p50 $(value p50_ms) ms, p99 $(value p99_ms) ms"
  echo "  stub CPU:       $(value cpu_us) µs per request (user $(value user_us) + system $(value system_us); /proc utime+stime over the measured run)"
  echo "  stub threads:   $threads at the end of the run"
  if [ "$(value ok)" = 1 ]; then
    echo "  verdict:        PASS (>= 95 % of the ceiling, zero errors)"
  else
    echo "  verdict:        FAIL (needs >= 95 % of the ceiling and zero errors)"
  fi
  echo "  raw output:     $OUT_DIR"
} | tee "$OUT_DIR/result.txt"

[ "$(value ok)" = 1 ]
