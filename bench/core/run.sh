#!/usr/bin/env bash
# bin/bench.sh core [--quick] [--only essence|cost|heap] [--connections N] [--warmup S] [--measure S] [--memory-manager M]
# — the core's three measurements, each side by side in one run (KODIAK_JAVA_OPTS adds JVM options to every
# Kodiak it starts; --memory-manager heap|direct|direct-64k swaps Grizzly's buffers, see MemoryManagerChoice.java):
#   essence  the original scenario's essence: a 500 ms stub, 200 keep-alive clients (--connections), POST "test1";
#            Kodiak against going direct (req/s ratio, p99 added, errors), alternating, repeated
#   cost     a zero-delay backend (an nginx of its own, returning a fixed body), 100 B POST, 200 connections;
#            Kodiak against nginx as a keep-alive proxy: req/s and CPU microseconds per request
#   heap     Kodiak started with -Xmx64m moving 100 MiB up and 100 MiB down (read at 20 MB/s);
#            peak heap and old-generation use against the same transfers at 10 MiB
# Writes target/bench/core-<timestamp>/: load.tsv and heap.tsv (a row per run or transfer), and from them
# results.json, report.md and report.html (bench/report, laid out by bench/core/report.json, with the
# targets checked); prints report.md.
# Loopback only; every load run is bounded; everything started is stopped by pid on exit.
set -euo pipefail
root=$(cd -P "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
source "$root/bin/lib/daemon.sh"
# shellcheck source=../../bin/lib/packages.sh
source "$root/bin/lib/packages.sh"
# shellcheck source=../lib/report.sh
source "$root/bench/lib/report.sh"
# shellcheck source=../lib/versions.sh
source "$root/bench/lib/versions.sh"
# shellcheck source=../lib/proc.sh
source "$root/bench/lib/proc.sh"
# shellcheck source=../lib/wrk.sh
source "$root/bench/lib/wrk.sh"
cd "$root"

args="$*"
quick=false
only=all
conns=200
warm_override=
measure_override=
memory_manager=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=true ;;
    --only) shift; only=${1:-}
            case $only in essence|cost|heap) ;; *) echo "bench core: --only takes essence, cost or heap" >&2; exit 2 ;; esac ;;
    --memory-manager) shift; memory_manager=${1:-}
            case $memory_manager in heap|direct|direct-64k) ;; *) echo "bench core: --memory-manager takes heap, direct or direct-64k" >&2; exit 2 ;; esac ;;
    --measure) shift; measure_override=${1:-}
            [[ $measure_override =~ ^[1-9][0-9]{0,3}$ ]] || { echo "bench core: --measure takes seconds (1-9999)" >&2; exit 2; } ;;
    --warmup) shift; warm_override=${1:-}
            [[ $warm_override =~ ^[1-9][0-9]{0,3}$ ]] || { echo "bench core: --warmup takes seconds (1-9999)" >&2; exit 2; } ;;
    --connections) shift; conns=${1:-}
            [[ $conns =~ ^[1-9][0-9]*$ ]] || { echo "bench core: --connections takes a positive number" >&2; exit 2; } ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "bench core: unknown option $1 (expected --quick, --only PART, --connections N, --warmup S, --measure S, --memory-manager M)" >&2; exit 2 ;;
  esac
  shift
done
wanted() { [ "$only" = all ] || [ "$only" = "$1" ]; }
if $quick; then warm=5; measure=8; rounds=1; else warm=15; measure=20; rounds=3; fi
warm=${warm_override:-$warm}
measure=${measure_override:-$measure}

stamp=$(date +%Y%m%d-%H%M%S)
out=$root/target/bench/core-$stamp
bench_begin "$out"
say() { printf '[core %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

STUB_PORT=9801; KODIAK_PORT=9802; BACKEND_PORT=9803; NGINX_PORT=9804; BULK_PORT=9805; HEAP_KODIAK_PORT=9806
# Pids go to a file: kodiak() runs in a $(...) subshell, where an array append would be lost.
pidfile=$out/started.pids
: > "$pidfile"
cleanup() {
  local pid
  while read -r pid; do kill -TERM "$pid" 2>/dev/null || true; done < "$pidfile"
  [ -f "$out/nginx/nginx.pid" ] && kill -TERM "$(cat "$out/nginx/nginx.pid")" 2>/dev/null || true
  [ -f "$out/backend/nginx.pid" ] && kill -TERM "$(cat "$out/backend/nginx.pid")" 2>/dev/null || true
  STUB_BASE=$out/stub "$root/bin/stub.sh" stop >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

ensure_packages "bench core" wrk nginx curl || exit 1
if [ ! -d target/lib ] || [ ! -d target/classes/io/kodiak ]; then
  say "building Kodiak…"; mvn -B -q -DskipTests package > "$out/build.log" 2>&1
fi
java=$(daemon_java 17 || command -v java)

# --memory-manager: Grizzly builds its default memory manager from a factory named by a system property.
# direct-64k also caps reads at 64 KiB: larger reads (the loopback socket buffer is bigger) bypass the
# manager's per-thread pool and allocate a new direct buffer each time.
extra_cp=
mm_opts=()
if [ -n "$memory_manager" ]; then
  mkdir -p "$out/mm-classes"
  javac -nowarn -cp "$root/target/lib/*" -d "$out/mm-classes" "$root/bench/core/MemoryManagerChoice.java"
  extra_cp=":$out/mm-classes"
  # proxy.buffers.memory-manager = heap is the setting under which Kodiak takes Grizzly's default manager.
  mm_opts=(-Dorg.glassfish.grizzly.MEMORY_MANAGER_FACTORY=MemoryManagerChoice "-Dbench.memory-manager=${memory_manager%-64k}"
    -Dproxy.buffers.memory-manager=heap)
  [ "$memory_manager" = direct-64k ] && mm_opts+=(-Dorg.glassfish.grizzly.nio.transport.TCPNIOTransport.max-receive-buffer-size=65536)
fi

# kodiak NAME PORT UPSTREAM_URL [JVM options...]: start Kodiak quietly (no access log) and wait for its port.
kodiak() {
  local name=$1 port=$2 upstream=$3; shift 3
  cat > "$out/$name.conf" <<EOF
proxy.listener.port = $port
proxy.admin.enabled = false
proxy.upstream.max-connections = 2000
proxy.routes = [ { prefix = "/", upstream = "$upstream" } ]
EOF
  # shellcheck disable=SC2086
  "$java" "$@" ${KODIAK_JAVA_OPTS:-} "${mm_opts[@]}" -Dlogback.configurationFile="$root/bench/core/logback-quiet.xml" \
    -Dkodiak.daemon="bench-core:$name " -cp "$root/target/classes:$root/target/lib/*$extra_cp" io.kodiak.daemon.Main \
    -c "$out/$name.conf" > "$out/$name.log" 2>&1 &
  local pid=$!
  echo "$pid" >> "$pidfile"
  daemon_wait_port 127.0.0.1 "$port" "$pid" 30 || { echo "Kodiak ($name) did not start:" >&2; tail "$out/$name.log" >&2; exit 1; }
  echo "$pid"
}

hz=$(getconf CLK_TCK)

# load NAME URL CONNECTIONS SECONDS LUA [PIDS...]: one bounded wrk run, its output kept in wrk-NAME-*.txt;
# prints its wrk_stats fields and the clock ticks of CPU the PIDS spent (empty without PIDS: not measured).
load() {
  local name=$1 url=$2 conns=$3 secs=$4 lua=$5; shift 5
  local c0 c1 text
  text=$(mktemp "$out/wrk-$name-XXXX.txt")
  c0=$(cpu_ticks "$@")
  wrk -t2 -c"$conns" -d"${secs}s" --timeout 10s --latency -s "$lua" "$url" > "$text"
  c1=$(cpu_ticks "$@")
  printf '%s\t%s\n' "$(wrk_stats "$text")" "$([ $# -gt 0 ] && echo $((c1 - c0)))"
}
load_tsv=$out/load.tsv
printf 'target\tscenario\tpart\trepetition\tconnections\t%s\tcpu_ticks\thz\n' "$(tr ' ' '\t' <<<"$WRK_STATS_FIELDS")" > "$load_tsv"
# measure_run TARGET PART ROUND load-ARGS...: one measured run, a row of load.tsv.
measure_run() {
  local target=$1 part=$2 round=$3; shift 3
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$part" "$part" "$round" "$3" "$(load "$@")" "$hz" >> "$load_tsv"
  bench_sample_load
}

cat > "$out/test1.lua" <<'EOF'
wrk.method = "POST"
wrk.body = "test1"
wrk.headers["Content-Type"] = "text/plain"
wrk.headers["Accept"] = "text/plain"
EOF
cat > "$out/post100.lua" <<'EOF'
wrk.method = "POST"
wrk.body = string.rep("x", 100)
wrk.headers["Content-Type"] = "text/plain"
EOF

# ---------------------------------------------------------------- essence
if wanted essence; then
say "essence: starting the stub (async, 500 ms) and Kodiak"
STUB_PORT=$STUB_PORT STUB_DELAY_MS=500 STUB_MODE=async STUB_BASE=$out/stub "$root/bin/stub.sh" start > "$out/stub-start.log"
stub_url=http://127.0.0.1:$STUB_PORT/ProxiedServiceStub/ServiceStubServlet
essence_pid=$(kodiak essence "$KODIAK_PORT" "$stub_url" -Xms256m -Xmx512m)
say "essence: warm-up ${warm}s each"
load warmup-direct "$stub_url" "$conns" "$warm" "$out/test1.lua" >/dev/null
load warmup-kodiak "http://127.0.0.1:$KODIAK_PORT/" "$conns" "$warm" "$out/test1.lua" "$essence_pid" >/dev/null
for r in $(seq 1 "$rounds"); do
  say "essence round $r/$rounds: direct, then Kodiak (${measure}s each)"
  measure_run direct essence "$r" essence-direct "$stub_url" "$conns" "$measure" "$out/test1.lua"
  measure_run kodiak essence "$r" essence-kodiak "http://127.0.0.1:$KODIAK_PORT/" "$conns" "$measure" "$out/test1.lua" "$essence_pid"
done
kill -TERM "$essence_pid"; STUB_BASE=$out/stub "$root/bin/stub.sh" stop > /dev/null
fi

# ------------------------------------------------------------------- cost
if wanted cost; then
say "cost: starting the backend (an nginx of its own), nginx as a keep-alive proxy, and Kodiak"
# Two nginx instances: the backend's workers must not be charged to the nginx proxy. (Until
# 2026-11-24 one instance served both, and its workers' CPU, backend included, was billed to nginx.)
body=$(printf 'x%.0s' $(seq 1 100))
mkdir -p "$out/backend" "$out/nginx"
cat > "$out/backend/nginx.conf" <<EOF
worker_processes 1;
pid $out/backend/nginx.pid;
error_log $out/backend/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $out/backend/body; proxy_temp_path $out/backend/proxy;
  fastcgi_temp_path $out/backend/fcgi; uwsgi_temp_path $out/backend/uwsgi; scgi_temp_path $out/backend/scgi;
  server { listen 127.0.0.1:$BACKEND_PORT; keepalive_requests 1000000;
           location / { client_body_buffer_size 64k; return 200 "$body"; } }
}
EOF
cat > "$out/nginx/nginx.conf" <<EOF
worker_processes 2;
pid $out/nginx/nginx.pid;
error_log $out/nginx/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $out/nginx/body; proxy_temp_path $out/nginx/proxy;
  fastcgi_temp_path $out/nginx/fcgi; uwsgi_temp_path $out/nginx/uwsgi; scgi_temp_path $out/nginx/scgi;
  upstream backend { server 127.0.0.1:$BACKEND_PORT; keepalive 512; keepalive_requests 1000000; }
  server { listen 127.0.0.1:$NGINX_PORT; keepalive_requests 1000000;
           location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection "";
                        proxy_request_buffering off; } }
}
EOF
nginx -c "$out/backend/nginx.conf"
daemon_wait_port 127.0.0.1 "$BACKEND_PORT" "$(cat "$out/backend/nginx.pid")" 10 || { echo "backend nginx did not start" >&2; exit 1; }
nginx -c "$out/nginx/nginx.conf"
daemon_wait_port 127.0.0.1 "$NGINX_PORT" "$(cat "$out/nginx/nginx.pid")" 10 || { echo "nginx did not start" >&2; exit 1; }
nginx_workers=$(pgrep -P "$(cat "$out/nginx/nginx.pid")" | tr '\n' ' ')
cost_pid=$(kodiak cost "$KODIAK_PORT" "http://127.0.0.1:$BACKEND_PORT/" -Xms256m -Xmx512m)
say "cost: warm-up ${warm}s each"
load warmup-kodiak "http://127.0.0.1:$KODIAK_PORT/" 200 "$warm" "$out/post100.lua" "$cost_pid" >/dev/null
load warmup-nginx "http://127.0.0.1:$NGINX_PORT/" 200 "$warm" "$out/post100.lua" $nginx_workers >/dev/null
for r in $(seq 1 "$rounds"); do
  say "cost round $r/$rounds: Kodiak, then nginx (${measure}s each)"
  measure_run kodiak cost "$r" cost-kodiak "http://127.0.0.1:$KODIAK_PORT/" 200 "$measure" "$out/post100.lua" "$cost_pid"
  # shellcheck disable=SC2086
  measure_run nginx cost "$r" cost-nginx "http://127.0.0.1:$NGINX_PORT/" 200 "$measure" "$out/post100.lua" $nginx_workers
done
kill -TERM "$cost_pid"
fi

# ------------------------------------------------------------------- heap
if wanted heap; then
say "heap: Kodiak with -Xmx64m in front of a bulk backend"
"$java" "$root/bench/core/BulkBackend.java" "$BULK_PORT" > "$out/bulk.log" 2>&1 &
bulk_pid=$!; echo "$bulk_pid" >> "$pidfile"
daemon_wait_port 127.0.0.1 "$BULK_PORT" "$bulk_pid" 60 || { echo "bulk backend did not start" >&2; exit 1; }
heap_pid=$(kodiak heap "$HEAP_KODIAK_PORT" "http://127.0.0.1:$BULK_PORT/" -Xms64m -Xmx64m)
# transfer MIB: upload MIB (chunked, streamed from /dev/zero) then download MIB at 20 MB/s; records the peak
# heap used and the peak old generation (what survives collections) sampled every 100 ms by jstat.
transfer() {
  local mib=$1 bytes=$(( $1 * 1024 * 1024 ))
  # The file first: the loop below reads it before the background job's redirection may have made it.
  : > "$out/jstat-$mib.txt"
  jstat -gc "$heap_pid" 100 > "$out/jstat-$mib.txt" &
  local jstat_pid=$! waited=0
  # jstat needs a moment to attach; a transfer that finished before it did would show nothing.
  while [ "$(wc -l < "$out/jstat-$mib.txt")" -lt 2 ] && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
  local up down
  up=$(head -c "$bytes" /dev/zero | curl -sS --max-time 120 -X POST -T - -H 'Content-Type: application/octet-stream' \
        "http://127.0.0.1:$HEAP_KODIAK_PORT/sink")
  down=$(curl -sS --max-time 120 --limit-rate 20M -o /dev/null -w '%{size_download}' \
        "http://127.0.0.1:$HEAP_KODIAK_PORT/bytes/$bytes")
  kill "$jstat_pid" 2>/dev/null || true; wait "$jstat_pid" 2>/dev/null || true
  local peak old uploaded ok=0
  peak=$(awk 'NR>1 && $1 ~ /^[0-9.]+$/ {u=$3+$4+$6+$8; if (u>m) m=u} END {printf "%d", m}' "$out/jstat-$mib.txt")
  old=$(awk 'NR>1 && $1 ~ /^[0-9.]+$/ {if ($8>m) m=$8} END {printf "%d", m}' "$out/jstat-$mib.txt")
  uploaded=$(sed -n 's/^received \([0-9]*\)$/\1/p' <<<"$up")
  [ "$uploaded" = "$bytes" ] && ok=$((ok + 1))
  [ "$down" = "$bytes" ] && ok=$((ok + 1))
  # The two transfers are its requests: each complete, or failed.
  printf 'kodiak\t%s MiB each way\theap\t2\t%s\t%s\t\t\t\t\t\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mib" "$ok" $((2 - ok)) \
    "$mib" "$bytes" "$uploaded" "${down:-}" "$peak" "$old" "$(grep -c OutOfMemoryError "$out/heap.log" || true)" >> "$heap_tsv"
}
heap_tsv=$out/heap.tsv
printf 'target\tscenario\tpart\trequests\tok\tko\trps\tp50_ms\tp95_ms\tp99_ms\tmean_ms\ttransfer_mib\texpected_bytes\tuploaded_bytes\tdownloaded_bytes\tpeak_heap_used_kib\tpeak_old_gen_kib\tout_of_memory_errors\n' \
  > "$heap_tsv"
say "heap: 10 MiB each way (baseline), then 100 MiB each way"
transfer 10
transfer 100
fi

# ----------------------------------------------------------------- report
tables=()
for tsv in "$load_tsv" "${heap_tsv:-}"; do
  [ -n "$tsv" ] && [ "$(wc -l < "$tsv")" -gt 1 ] && tables+=(--rows "$tsv")
done
mapfile -t versions < <(version_args java="$java" nginx=nginx wrk=wrk)
bench_report core "$out" "bin/bench.sh core $args" "${tables[@]}" "${versions[@]}" \
  --param only="$only" --param rounds="$rounds" --param warmup_s="$warm" --param measure_s="$measure" --param connections="$conns" \
  --param kodiak_java_opts="${KODIAK_JAVA_OPTS:-none}" --param memory_manager="${memory_manager:-default}"
cat "$out/report.md"
say "report: $out/report.md"
