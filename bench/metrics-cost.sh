#!/usr/bin/env bash
# What recording metrics costs: the same Kodiak build, once with the admin listener and metrics on
# (proxy.admin.enabled = true) and once with both off, loaded alternately by wrk in one run, in
# front of a fast nginx backend on loopback. Reports req/s and the proxy's own CPU time per request
# (utime + stime from /proc, the figure that holds on a shared machine) for each, and the ratios.
#
#   bench/metrics-cost.sh [--rounds N] [--duration SECONDS] [--warmup SECONDS] [--connections N]
#
# Bounded: warm-up (each instance once) plus ROUNDS x 2 wrk runs of DURATION seconds. Installs wrk and
# nginx from Debian when missing (apt-get, needs root). Writes target/bench/metrics-cost-<timestamp>/report.md.
set -euo pipefail

# shellcheck source=../bin/lib/daemon.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../bin/lib/daemon.sh"
# shellcheck source=../bin/lib/packages.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../bin/lib/packages.sh"
ROOT=$(cd "$(daemon_script_dir "${BASH_SOURCE[0]}")/.." && pwd)

ROUNDS=3
DURATION=15
WARMUP=10
CONNECTIONS=100
BODY_BYTES=100

usage() {
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
}

while [ $# -gt 0 ]; do
  case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --connections) CONNECTIONS=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage; exit 2 ;;
  esac
done
for n in "$ROUNDS" "$DURATION" "$WARMUP" "$CONNECTIONS"; do
  [[ $n =~ ^[0-9]+$ ]] && ((n > 0)) || { echo "metrics-cost: every option takes a positive integer" >&2; exit 2; }
done
((DURATION <= 120 && ROUNDS <= 10 && WARMUP <= 60)) || { echo "metrics-cost: at most 10 rounds of 120 s and 60 s warm-up" >&2; exit 2; }


RUN=$ROOT/target/bench/metrics-cost-$(date +%Y%m%d-%H%M%S)
mkdir -p "$RUN"
# Anything a tool writes to its working directory lands in the run's directory.
cd "$RUN"
ensure_packages metrics-cost wrk nginx || exit 1
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

BACKEND_PORT=$(daemon_free_port 19421)
ON_PORT=$(daemon_free_port 19411)
OFF_PORT=$(daemon_free_port $((ON_PORT + 1)))
ADMIN_PORT=$(daemon_free_port 19491)

NGINX_PID=
cleanup() {
  PROXY_BASE=$RUN/on "$ROOT/bin/proxy.sh" stop >/dev/null 2>&1 || true
  PROXY_BASE=$RUN/off "$ROOT/bin/proxy.sh" stop >/dev/null 2>&1 || true
  if [ -n "$NGINX_PID" ]; then kill -TERM "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

# ---- the backend: nginx answering a fixed 100-byte body, keep-alive without limit
BODY=$(head -c "$BODY_BYTES" /dev/zero | tr '\0' 'x')
mkdir -p "$RUN/nginx/logs"
cat >"$RUN/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $RUN/nginx/nginx.pid;
error_log $RUN/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  server {
    listen 127.0.0.1:$BACKEND_PORT;
    location / { default_type text/plain; return 200 "$BODY"; }
  }
}
EOF
"$NGINX" -p "$RUN/nginx" -c "$RUN/nginx/nginx.conf" -g 'daemon off;' &
NGINX_PID=$!
daemon_wait_port 127.0.0.1 "$BACKEND_PORT" "$NGINX_PID" 10 || { echo "metrics-cost: nginx did not start" >&2; exit 1; }

# ---- two Kodiak instances of the same build: metrics on, metrics off
cat >"$RUN/kodiak.conf" <<EOF
proxy {
  listener { host = "127.0.0.1" }
  routes = [ { prefix = "/", upstream = "http://127.0.0.1:$BACKEND_PORT/" } ]
}
EOF
# The access log would cost the same on both sides and drown the difference: off here.
cat >"$RUN/logback-bench.xml" <<'EOF'
<configuration>
  <appender name="APP" class="ch.qos.logback.core.FileAppender">
    <file>${PROXY_LOG_DIR}/kodiak.log</file>
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
  </appender>
  <logger name="kodiak.access" level="OFF"/>
  <logger name="org.glassfish.grizzly" level="WARN"/>
  <root level="INFO"><appender-ref ref="APP"/></root>
</configuration>
EOF
start_kodiak() {
  local name=$1 port=$2 admin=$3
  PROXY_BASE=$RUN/$name PROXY_CONF=$RUN/kodiak.conf \
    JAVA_OPTS="-Dlogback.configurationFile=$RUN/logback-bench.xml -Dproxy.listener.port=$port -Dproxy.admin.enabled=$admin -Dproxy.admin.port=$ADMIN_PORT" \
    "$ROOT/bin/proxy.sh" start >"$RUN/start-$name.out"
  head -n 1 "$RUN/start-$name.out"
}
start_kodiak on "$ON_PORT" true
start_kodiak off "$OFF_PORT" false
ON_PID=$(cat "$RUN/on/proxy.pid")
OFF_PID=$(cat "$RUN/off/proxy.pid")

cat >"$RUN/post.lua" <<EOF
wrk.method = "POST"
wrk.body = string.rep("b", $BODY_BYTES)
wrk.headers["Content-Type"] = "text/plain"
EOF

CLK_TCK=$(getconf CLK_TCK)
cpu_ticks() {
  # utime + stime: fields 14 and 15 of /proc/PID/stat (the command name, field 2, has no spaces here).
  awk '{print $14 + $15}' "/proc/$1/stat"
}

# load NAME PORT PID SECONDS -> appends "name rps requests errors cpu_us_per_request" to results
load() {
  local name=$1 port=$2 pid=$3 seconds=$4 before after out requests rps errors
  before=$(cpu_ticks "$pid")
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${seconds}s" --timeout 5s -s "$RUN/post.lua" "http://127.0.0.1:$port/")
  after=$(cpu_ticks "$pid")
  echo "$out" >>"$RUN/wrk-$name.log"
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  rps=$(awk '/^Requests\/sec:/ {printf "%d", $2}' <<<"$out")
  errors=$(awk '/Non-2xx|Socket errors/ {for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+,?$/) s += $i} END {print s + 0}' <<<"$out")
  echo "$name $rps $requests $errors $(awk -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$requests" \
    'BEGIN {printf "%.1f", (n > 0 ? t * 1000000 / hz / n : 0)}')"
}

echo "warm-up: ${WARMUP}s each (JIT)…"
load on "$ON_PORT" "$ON_PID" "$WARMUP" >/dev/null
load off "$OFF_PORT" "$OFF_PID" "$WARMUP" >/dev/null

RESULTS=$RUN/results.txt
: >"$RESULTS"
for round in $(seq 1 "$ROUNDS"); do
  # Alternate the order so drift on the machine does not favour one side.
  if ((round % 2)); then order="on off"; else order="off on"; fi
  for name in $order; do
    if [ "$name" = on ]; then line=$(load on "$ON_PORT" "$ON_PID" "$DURATION"); else line=$(load off "$OFF_PORT" "$OFF_PID" "$DURATION"); fi
    echo "round $round $line" | tee -a "$RESULTS"
  done
done

# A scrape after the load shows the metrics saw it (and what a scrape looks like at this point).
timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$ADMIN_PORT; printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3; cat <&3" \
  >"$RUN/metrics-after.txt" 2>/dev/null || true

{
  echo "# Metrics cost: Kodiak with metrics on vs off"
  echo
  echo "$(date '+%Y-%m-%d %H:%M') · $(nproc) cores · backend nginx (1 worker, ${BODY_BYTES} B body) · wrk -t2 -c$CONNECTIONS -d${DURATION}s POST ${BODY_BYTES} B · $ROUNDS rounds, alternating, after ${WARMUP}s warm-up each"
  echo
  echo "| round | metrics | req/s | requests | errors | proxy CPU µs/request |"
  echo "|---|---|---|---|---|---|"
  awk '{printf "| %s | %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, $6, $7}' "$RESULTS"
  echo
  awk '
    function median(a, n,   i, j, t) {
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    $3 == "on"  { on_rps[++n_on] = $4; on_cpu[n_on] = $7 }
    $3 == "off" { off_rps[++n_off] = $4; off_cpu[n_off] = $7 }
    END {
      ron = median(on_rps, n_on); roff = median(off_rps, n_off)
      con = median(on_cpu, n_on); coff = median(off_cpu, n_off)
      printf "median req/s: on %d, off %d → on/off = %.3f\n\n", ron, roff, ron / roff
      printf "median proxy CPU per request: on %.1f µs, off %.1f µs → on/off = %.3f\n", con, coff, con / coff
    }' "$RESULTS"
} >"$RUN/report.md"

echo
cat "$RUN/report.md"
echo
echo "report: $RUN/report.md"
