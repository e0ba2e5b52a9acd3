#!/usr/bin/env bash
# Slow readers against the heap: CLIENTS clients each ask Kodiak for a 256 MB file from an nginx
# backend and then read nothing (a 4 KiB receive window), the way an attacker would hold a proxy's
# memory. For each setting given (default: the daemon as shipped, then the same without the
# write-queue budget), Kodiak is started with bin/proxy.sh, the clients connect, and the run records
# whether the daemon is still alive 20 s later, what its write queues hold
# (kodiak_write_queues_bytes), its resident memory, and how long one more client that does read takes
# to download the whole file meanwhile.
#
#   bench/slow-readers.sh [--clients N] [--heap SIZE] [SETTING...]
#
# SETTING: JVM options for one Kodiak start, quoted as one word, e.g. "-Dproxy.buffers.max-queued=1t"
# (no budget) or "" (the defaults). --heap adds -Xmx to every start (default: bin/proxy.sh's 1g).
# Bounded: at most about 4 minutes per setting (connecting, 20 s held, one download of at most 60 s,
# the stop). Needs nginx (installed from Debian when missing) and python3, and an open-file limit
# of at least 2 x CLIENTS + 512 (raised to the hard limit when lower).
# Writes target/bench/slow-readers-<timestamp>/report.md.
set -euo pipefail

# shellcheck source=../bin/lib/daemon.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../bin/lib/daemon.sh"
# shellcheck source=../bin/lib/packages.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../bin/lib/packages.sh"
ROOT=$(cd "$(daemon_script_dir "${BASH_SOURCE[0]}")/.." && pwd)

CLIENTS=3000
HEAP=
SETTINGS=()

usage() {
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
}

while [ $# -gt 0 ]; do
  case $1 in
    --clients) CLIENTS=$2; shift 2 ;;
    --heap) HEAP=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --*) usage; exit 2 ;;
    *) SETTINGS+=("$1"); shift ;;
  esac
done
[[ $CLIENTS =~ ^[0-9]+$ ]] && ((CLIENTS > 0 && CLIENTS <= 8000)) || { echo "slow-readers: --clients takes 1 to 8000" >&2; exit 2; }
[ -z "$HEAP" ] || [[ $HEAP =~ ^[0-9]+[mg]$ ]] || { echo "slow-readers: --heap takes a size such as 256m or 1g" >&2; exit 2; }
((${#SETTINGS[@]} > 0)) || SETTINGS=("" "-Dproxy.buffers.max-queued=1t")
command -v python3 >/dev/null || { echo "slow-readers: needs python3" >&2; exit 1; }
# Each slow client is a socket in python3 and one in Kodiak, plus Kodiak's to nginx.
need_files=$((2 * CLIENTS + 512))
(($(ulimit -n) >= need_files)) || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
(($(ulimit -n) >= need_files)) || { echo "slow-readers: needs an open-file limit of $need_files (ulimit -n: $(ulimit -n))" >&2; exit 1; }

RUN=$ROOT/target/bench/slow-readers-$(date +%Y%m%d-%H%M%S)
mkdir -p "$RUN"
cd "$RUN"
ensure_packages slow-readers nginx curl || exit 1
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
BACKEND_PORT=$(daemon_free_port 19431)
PROXY_PORT=$(daemon_free_port 19441)
ADMIN_PORT=$(daemon_free_port 19496)

NGINX_PID=
SLOW_PID=
current=
cleanup() {
  if [ -n "$SLOW_PID" ]; then kill "$SLOW_PID" 2>/dev/null || true; fi
  if [ -n "$current" ]; then PROXY_BASE=$current "$ROOT/bin/proxy.sh" stop >/dev/null 2>&1 || true; fi
  if [ -n "$NGINX_PID" ]; then kill -TERM "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; fi
  rm -f "$RUN/nginx/html/big.bin"
}
trap cleanup EXIT

# ---- the backend: nginx serving a 256 MB file with sendfile (fast enough to fill any queue)
mkdir -p "$RUN/nginx/logs" "$RUN/nginx/html"
head -c $((256 << 20)) /dev/zero >"$RUN/nginx/html/big.bin"
cat >"$RUN/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $RUN/nginx/nginx.pid;
error_log $RUN/nginx/logs/error.log warn;
events { worker_connections 16384; }
http {
  access_log off;
  sendfile on;
  server { listen 127.0.0.1:$BACKEND_PORT; root $RUN/nginx/html; }
}
EOF
"$NGINX" -p "$RUN/nginx" -c "$RUN/nginx/nginx.conf" -g 'daemon off;' &
NGINX_PID=$!
daemon_wait_port 127.0.0.1 "$BACKEND_PORT" "$NGINX_PID" 10 || { echo "slow-readers: nginx did not start" >&2; exit 1; }

# Pools as large as the crowd, so the write queues, not the pool's limit, are what is tested.
cat >"$RUN/kodiak.conf" <<EOF
proxy {
  listener { host = "127.0.0.1", port = $PROXY_PORT }
  admin { port = $ADMIN_PORT }
  upstream { max-connections = $((CLIENTS + 100)) }
  routes = [ { prefix = "/", upstream = "http://127.0.0.1:$BACKEND_PORT/" } ]
}
EOF

cat >"$RUN/slow.py" <<'EOF'
import socket, sys, time
port, n, hold = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
socks = []
try:
    for i in range(n):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /big.bin HTTP/1.1\r\nHost: slow\r\n\r\n")
        socks.append(s)
except OSError as e:
    print("failed after", len(socks), e, flush=True)
    sys.exit(1)
print("opened", n, flush=True)
time.sleep(hold)
EOF

# One metric's value, empty when the admin endpoint does not answer (a daemon busy collecting).
metric() {
  { curl -s --max-time 5 "http://127.0.0.1:$ADMIN_PORT/metrics" || true; } | awk -v m="$1" '$1 == m { printf "%.0f", $2 }'
}
mb() {
  if [ -n "$1" ]; then echo "$(($1 >> 20)) MB"; else echo "-"; fi
}

{
  echo "# Slow readers against the heap"
  echo
  echo "$(date '+%Y-%m-%d %H:%M') · $(nproc) cores · load $(cut -d' ' -f1-3 /proc/loadavg) · $CLIENTS clients each asking for 256 MB and reading nothing (4 KiB receive window) · one more client downloading the same file meanwhile · heap ${HEAP:-bin/proxy.sh default}"
  echo
  echo "| setting | alive after 20 s | queued (kodiak_write_queues_bytes) | budget | waits under pressure | RSS | full download by another client |"
  echo "|---|---|---|---|---|---|---|"
} >"$RUN/report.md"

# One setting done: its clients and its Kodiak stopped (by the PIDs this script started).
end_setting() {
  kill "$SLOW_PID" 2>/dev/null || true
  wait "$SLOW_PID" 2>/dev/null || true
  SLOW_PID=
  PROXY_BASE=$current "$ROOT/bin/proxy.sh" stop >/dev/null 2>&1 || true
  current=
}

i=0
for setting in "${SETTINGS[@]}"; do
  i=$((i + 1))
  current=$RUN/k$i
  opts="$setting${HEAP:+ -Xmx$HEAP}"
  if ! PROXY_BASE=$current PROXY_CONF=$RUN/kodiak.conf JAVA_OPTS="$opts" "$ROOT/bin/proxy.sh" start >"$RUN/start-$i.out" 2>&1; then
    # A setting the JVM refuses (say -Xmx below bin/proxy.sh's -Xms256m): said, and the next one runs.
    echo "| \`${setting:-(defaults)}\` | no: did not start (start-$i.out) | - | - | - | - | - |" >>"$RUN/report.md"
    end_setting
    continue
  fi
  pid=$(cat "$current/proxy.pid")
  # The clients hold their sockets until killed below (at most 300 s if this script dies first).
  python3 "$RUN/slow.py" "$PROXY_PORT" "$CLIENTS" 300 >"$RUN/slow-$i.out" 2>&1 &
  SLOW_PID=$!
  for _ in $(seq 1 60); do
    grep -q opened "$RUN/slow-$i.out" && break
    kill -0 "$SLOW_PID" 2>/dev/null || break
    sleep 1
  done
  if ! grep -q opened "$RUN/slow-$i.out"; then
    # Kodiak died while they connected (out of heap, say), or the clients could not connect: the
    # row says which, and the next setting runs.
    connecting="no: $(kill -0 "$pid" 2>/dev/null && echo "alive, clients: $(head -c 200 "$RUN/slow-$i.out" | tr '\n|' '  ')" || echo "died while the clients connected")"
    echo "| \`${setting:-(defaults)}\` | $connecting | - | - | - | - | - |" >>"$RUN/report.md"
    end_setting
    continue
  fi
  sleep 20
  alive=no queued=- budget=- pressure=- rss=- download=-
  if kill -0 "$pid" 2>/dev/null; then
    alive=yes
    queued=$(mb "$(metric kodiak_write_queues_bytes)")
    budget=$(mb "$(metric kodiak_write_queues_budget_bytes)")
    pressure=$(metric kodiak_write_queues_waits_under_pressure_total)
    pressure=${pressure:--}
    rss=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    rss=$(mb "${rss:+$((rss << 10))}")
    download=$(curl -s -o /dev/null --max-time 60 -w '%{http_code} %{size_download} B in %{time_total} s' "http://127.0.0.1:$PROXY_PORT/big.bin" || true)
    kill -0 "$pid" 2>/dev/null || alive="no: died during the download"
  elif grep -q OutOfMemoryError "$current/logs/console.log" 2>/dev/null; then
    alive="no: OutOfMemoryError"
  fi
  echo "| \`${setting:-(defaults)}\` | $alive | $queued | $budget | $pressure | $rss | $download |" >>"$RUN/report.md"
  end_setting
done
echo >>"$RUN/report.md"
echo "Command: bench/slow-readers.sh --clients $CLIENTS${HEAP:+ --heap $HEAP} $(printf "%q " "${SETTINGS[@]}")" >>"$RUN/report.md"
cat "$RUN/report.md"
