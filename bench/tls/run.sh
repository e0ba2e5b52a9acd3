#!/usr/bin/env bash
# bin/bench.sh tls [--quick] [--rounds N] [--duration S]
#
# TLS termination, Kodiak against nginx in one run: each terminates TLS 1.3 (the same ECDSA P-256
# certificate, made here with openssl) and forwards to the same nginx backend on loopback: plain
# HTTP, or under /tls/ HTTPS (both proxies verify the backend's certificate and keep their TLS
# connections to it pooled). wrk loads each in turn, the targets alternating within every round:
#   keepalive-100b, keepalive-10k  80 keep-alive connections, GET of a 100 B or 10 KB body;
#   handshake                       80 connections sending "Connection: close": a full handshake per
#                                   request (wrk keeps no session cache), so this is handshakes/s;
#   tls-upstream-100b, -10k         as keepalive-*, with TLS to the backend too (TLS on both sides).
# Per run: req/s, errors, latency, and the proxy's own CPU per request (utime + stime of its
# processes from /proc, the figure that holds on a shared machine). Kodiak runs as bin/proxy.sh ships it, with its
# access log off like nginx's (bench/throughput/logback.xml); KODIAK_JAVA_OPTS adds JVM options (a
# -Dproxy.<key>=<value> setting, as bin/bench.sh throughput takes them). Each target is warmed up first (the
# JIT): 5 s on every cell, 25 s in all. Defaults: 3 rounds of 10 s per cell; --quick: 1 round of
# 5 s, 2 s of warm-up per cell.
# Writes target/bench/tls-<timestamp>/: tls.tsv (a row per run), and from it results.json, report.md
# and report.html (bench/report, laid out by bench/tls/report.json, with the issue's targets checked);
# each run's wrk output in logs/. Bounded: wrk stops by itself; everything started is stopped by pid,
# also on errors. Installs nginx, wrk and openssl when missing.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/common.sh
. "$root/bench/lib/common.sh"

args="$*"
rounds=3 duration=10 warmup=15
while [ $# -gt 0 ]; do
  case $1 in
    --quick) rounds=1 duration=5 warmup=5; shift ;;
    --rounds) rounds=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bin/bench.sh tls [--quick] [--rounds N] [--duration S]" >&2; exit 2 ;;
  esac
done
for n in "$rounds" "$duration"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "tls: --rounds and --duration take positive whole numbers" >&2; exit 2; }
done
ensure_packages tls nginx wrk openssl
java17=$(daemon_java 17) || { echo "tls: Java 17 not found" >&2; exit 1; }
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

stamp=$(date -u +%Y%m%d-%H%M%S)
out=$root/target/bench/tls-$stamp
mkdir -p "$out/logs" "$out/www" "$out/tls"
log() { echo "[tls $(date -u +%H:%M:%S)] $*"; }
declare -A PORT=([kodiak]=9801 [nginx]=9802 [backend]=9803 [backend-tls]=9804)

started=()
cleanup() {
  local entry pid
  for entry in ${started[@]+"${started[@]}"}; do
    if pid=$(daemon_pid "${entry%%|*}" "${entry#*|}"); then kill -TERM "$pid" 2>/dev/null || true; fi
  done
}
trap cleanup EXIT INT TERM

# ---- material: a certificate, the bodies, the backend -------------------------------------------
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost -keyout "$out/tls/server.key" -out "$out/tls/server.pem" 2>/dev/null
head -c 100 /dev/zero | tr '\0' x >"$out/www/100b"
head -c 10240 /dev/zero | tr '\0' x >"$out/www/10k"

nginx_conf() {   # NAME LISTEN-DIRECTIVE BODY
  mkdir -p "$out/$1/logs" "$out/$1/tmp"
  cat >"$out/$1/nginx.conf" <<CONF
worker_processes 2;
pid $out/$1/nginx.pid;
error_log $out/$1/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $out/$1/tmp; proxy_temp_path $out/$1/tmp; fastcgi_temp_path $out/$1/tmp;
  uwsgi_temp_path $out/$1/tmp; scgi_temp_path $out/$1/tmp;
  $3
}
CONF
}
start_nginx() {   # NAME PORT
  daemon_start "nginx $1" "$out/$1/daemon.pid" "$out/$1/console.log" "-p $out/$1/" 127.0.0.1 "$2" 30 -- \
    "$nginx_bin" -p "$out/$1/" -c "$out/$1/nginx.conf" -e "$out/$1/logs/error.log" -g "daemon off;"
  started+=("$out/$1/daemon.pid|-p $out/$1/")
}

nginx_conf backend "" "server { listen 127.0.0.1:${PORT[backend]} backlog=4096; root $out/www; keepalive_requests 1000000; }
  server {
    listen 127.0.0.1:${PORT[backend-tls]} ssl backlog=4096; root $out/www; keepalive_requests 1000000;
    ssl_certificate $out/tls/server.pem; ssl_certificate_key $out/tls/server.key; ssl_protocols TLSv1.3 TLSv1.2;
  }"
start_nginx backend "${PORT[backend]}"

nginx_conf nginx "" "upstream backend { server 127.0.0.1:${PORT[backend]}; keepalive 256; }
  upstream backend_tls { server 127.0.0.1:${PORT[backend-tls]}; keepalive 256; }
  server {
    listen 127.0.0.1:${PORT[nginx]} ssl backlog=4096;
    ssl_certificate $out/tls/server.pem; ssl_certificate_key $out/tls/server.key;
    ssl_protocols TLSv1.3 TLSv1.2; keepalive_requests 1000000;
    location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection \"\"; }
    location /tls/ {
      proxy_pass https://backend_tls/; proxy_http_version 1.1; proxy_set_header Connection \"\";
      proxy_ssl_verify on; proxy_ssl_trusted_certificate $out/tls/server.pem;
      proxy_ssl_name localhost; proxy_ssl_server_name on; proxy_ssl_protocols TLSv1.3 TLSv1.2;
    }
  }"

kodiak_conf() {   # NAME
  cat >"$out/$1.conf" <<CONF
proxy {
  listener {
    host = "127.0.0.1", port = ${PORT[$1]}, idle-timeout = 600s
    tls { certificate = "$out/tls/server.pem", key = "$out/tls/server.key" }
  }
  routes = [ { prefix = "/", upstream = "http://127.0.0.1:${PORT[backend]}" },
             { prefix = "/tls/", upstream = "https://127.0.0.1:${PORT[backend-tls]}/" } ]
  upstream { max-connections = 1000, idle-timeout = 600s, tls { trust = "$out/tls/server.pem", server-name = "localhost" } }
  admin { enabled = false }
}
CONF
}
kodiak_conf kodiak

start_target() {
  case $1 in
    kodiak)
      PROXY_CONF=$out/$1.conf PROXY_BASE=$out/$1 \
        JAVA_OPTS="-Dlogback.configurationFile=$root/bench/throughput/logback.xml${KODIAK_JAVA_OPTS:+ $KODIAK_JAVA_OPTS}" \
        "$root/bin/proxy.sh" start >>"$out/logs/$1.log" 2>&1 || { tail -n 20 "$out/logs/$1.log" >&2; exit 1; }
      started+=("$out/$1/proxy.pid|-Dkodiak.daemon=proxy:$out/$1 ") ;;
    nginx) start_nginx nginx "${PORT[nginx]}" ;;
  esac
}

# A target's processes, whose CPU it is charged: the JVM, or nginx's master and workers.
target_pids() {
  case $1 in
    kodiak) cat "$out/$1/proxy.pid" ;;
    nginx) echo "$(cat "$out/nginx/daemon.pid") $(pgrep -P "$(cat "$out/nginx/daemon.pid")" || true)" ;;
  esac
}

# One wrk run; its output goes to OUTPUT.
run_wrk() {   # TARGET CELL SECONDS OUTPUT
  local url="https://localhost:${PORT[$1]}" extra=()
  case $2 in
    keepalive-100b) url+=/100b ;;
    keepalive-10k) url+=/10k ;;
    handshake) url+=/100b; extra=(-H "Connection: close") ;;
    tls-upstream-100b) url+=/tls/100b ;;
    tls-upstream-10k) url+=/tls/10k ;;
  esac
  timeout $(($3 + 30)) wrk -t2 -c80 -d"${3}s" --latency ${extra[@]+"${extra[@]}"} "$url" >"$4" 2>&1 || true
}

# What a cell is, as fields a section or a check can select on: KIND PAYLOAD BACKEND.
describe_cell() {   # CELL
  case $1 in
    keepalive-100b) printf 'keep-alive\t100 B\tplain' ;;
    keepalive-10k) printf 'keep-alive\t10 KB\tplain' ;;
    handshake) printf 'handshake\t100 B\tplain' ;;
    tls-upstream-100b) printf 'keep-alive\t100 B\tTLS' ;;
    tls-upstream-10k) printf 'keep-alive\t10 KB\tTLS' ;;
  esac
}

# The daemon runs from target/kodiak.jar: rebuilt when the sources are newer (bin/proxy.sh only warns).
kodiak_build_if_stale "$root" "$out/logs/build.log" || exit 1

targets=(kodiak nginx)
cells=(keepalive-100b keepalive-10k handshake tls-upstream-100b tls-upstream-10k)
bench_begin "$out"
log "rounds $rounds, ${duration}s per cell, $(( (warmup + 2) / 3 ))s warm-up per cell and target; load average $BENCH_LOAD_BEFORE"
for t in "${targets[@]}"; do start_target "$t"; done
for t in "${targets[@]}"; do
  log "warm-up $t"
  for c in "${cells[@]}"; do run_wrk "$t" "$c" $(( (warmup + 2) / 3 )) "$out/logs/wrk-warmup-$t-$c.txt"; done
done
tsv=$out/tls.tsv
printf 'target\tscenario\trepetition\tkind\tpayload\tbackend\t%s\tseconds\tcpu_ticks\thz\n' "$(tr ' ' '\t' <<<"$WRK_STATS_FIELDS")" >"$tsv"
hz=$(getconf CLK_TCK)
for round in $(seq 1 "$rounds"); do
  for ci in "${!cells[@]}"; do
    c=${cells[$ci]}
    # The targets in turn, starting one further each round and cell, so none always runs first.
    order=()
    shift_by=$(( (round + ci) % ${#targets[@]} ))
    for k in "${!targets[@]}"; do order+=("${targets[$(((k + shift_by) % ${#targets[@]}))]}"); done
    for t in "${order[@]}"; do
      wrk_out=$out/logs/wrk-r$round-$t-$c.txt
      # shellcheck disable=SC2046 # one PID per word
      before=$(cpu_ticks $(target_pids "$t"))
      run_wrk "$t" "$c" "$duration" "$wrk_out"
      # shellcheck disable=SC2046
      after=$(cpu_ticks $(target_pids "$t"))
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$c" "$round" "$(describe_cell "$c")" "$(wrk_stats "$wrk_out")" \
        "$duration" $((after - before)) "$hz" >>"$tsv"
      log "round $round $c $t: $(tail -n 1 "$tsv" | cut -f7,9 | tr '\t' ' ') (requests, errors); $((after - before)) ticks of CPU"
      bench_sample_load
    done
  done
done

# The report puts the targets' columns in the order they first appear in the rows, and the first
# run of a round can be either's: Kodiak's rows first (a stable sort keeps the runs' order within).
{ head -n 1 "$tsv"; tail -n +2 "$tsv" | sort -s -t $'\t' -k 1,1; } >"$tsv.sorted" && mv "$tsv.sorted" "$tsv"
mapfile -t versions < <(version_args java="$java17" nginx="$nginx_bin" wrk=wrk openssl=openssl)
bench_report tls "$out" "bin/bench.sh tls $args" --rows "$tsv" "${versions[@]}" \
  --param rounds="$rounds" --param seconds_per_cell="$duration" --param warmup_s_per_cell="$(( (warmup + 2) / 3 ))" \
  --param wrk_options="-t2 -c80 --latency"
log "report: $out/report.md"
cat "$out/report.md"
