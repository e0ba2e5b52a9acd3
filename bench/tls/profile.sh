#!/usr/bin/env bash
# bench/tls/profile.sh [--plain] [--handshake] [--jfr FILE] [--java-opts "..."] [--classpath CP]
#
# One cell, one Kodiak, for finding where its CPU goes (not a comparison: bin/bench.sh tls is that):
# Kodiak (TLS listener, or --plain) before a one-worker nginx serving 100 B, wrk -t2 -c80 keep-alive
# (--handshake: "Connection: close", a full handshake per request). 15 s of warm-up, then 20 s
# measured: prints Kodiak's CPU per request (utime + stime from /proc) and wrk's req/s. --jfr FILE
# records the measured 20 s with JFR's profile settings (read it with
# `jfr print --events jdk.ExecutionSample,jdk.ObjectAllocationSample FILE`). --classpath runs
# another build (a target/runtime/kodiak-*/ copy, say: "DIR/kodiak.jar:DIR/lib/*"); --java-opts adds
# JVM options (-Djdk.tls.namedGroups=..., say). Ports 9901 (Kodiak) and 9903 (nginx); everything
# started is stopped by pid. Installs nginx, wrk and openssl when missing.
set -euo pipefail
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../bin/lib/daemon.sh
. "$root/bin/lib/daemon.sh"
# shellcheck source=../../bin/lib/packages.sh
. "$root/bin/lib/packages.sh"
# shellcheck source=../../bin/lib/build.sh
. "$root/bin/lib/build.sh"

tls=true handshake=false jfr= java_opts= classpath=
while [ $# -gt 0 ]; do
  case $1 in
    --plain) tls=false; shift ;;
    --handshake) handshake=true; shift ;;
    --jfr) jfr=$(readlink -f "$2"); shift 2 ;;
    --java-opts) java_opts=$2; shift 2 ;;
    --classpath) classpath=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bench/tls/profile.sh [--plain] [--handshake] [--jfr FILE] [--java-opts \"...\"] [--classpath CP]" >&2; exit 2 ;;
  esac
done
ensure_packages tls-profile nginx wrk openssl
java17=$(daemon_java 17) || { echo "profile: Java 17 not found" >&2; exit 1; }
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
out=$root/target/bench/tls-profile-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$out/www" "$out/tls" "$out/nginx/logs" "$out/nginx/tmp" "$out/logs"
if [ -z "$classpath" ]; then
  kodiak_build_if_stale "$root" "$out/logs/build.log" || exit 1
  classpath="$root/target/kodiak.jar:$root/target/lib/*"
fi

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost -keyout "$out/tls/server.key" -out "$out/tls/server.pem" 2>/dev/null
head -c 100 /dev/zero | tr '\0' x >"$out/www/100b"
cat >"$out/nginx/nginx.conf" <<CONF
worker_processes 1; pid $out/nginx/nginx.pid; error_log $out/nginx/logs/error.log warn;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path $out/nginx/tmp; proxy_temp_path $out/nginx/tmp; fastcgi_temp_path $out/nginx/tmp;
  uwsgi_temp_path $out/nginx/tmp; scgi_temp_path $out/nginx/tmp;
  server { listen 127.0.0.1:9903 backlog=4096; root $out/www; keepalive_requests 1000000; } }
CONF
listener_tls=
scheme=http
if [ "$tls" = true ]; then
  listener_tls="tls { certificate = \"$out/tls/server.pem\", key = \"$out/tls/server.key\" }"
  scheme=https
fi
cat >"$out/kodiak.conf" <<CONF
proxy {
  listener { host = "127.0.0.1", port = 9901, idle-timeout = 600s
    $listener_tls }
  routes = [ { prefix = "/", upstream = "http://127.0.0.1:9903" } ]
  upstream { max-connections = 1000, idle-timeout = 600s }
  admin { enabled = false }
}
CONF

pids=()
cleanup() { local p; for p in ${pids[@]+"${pids[@]}"}; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM
"$nginx_bin" -p "$out/nginx/" -c "$out/nginx/nginx.conf" -e "$out/nginx/logs/error.log" -g "daemon off;" &
pids+=($!)
recording=()
[ -n "$jfr" ] && recording=("-XX:StartFlightRecording=delay=18s,duration=20s,filename=$jfr,settings=profile")
# shellcheck disable=SC2086 # --java-opts is split into words on purpose
"$java17" -Xms256m -Xmx1g -XX:+UseParallelGC -Djdk.tls.rejectClientInitiatedRenegotiation=true \
  -Dlogback.configurationFile="$root/bench/throughput/logback.xml" ${recording[@]+"${recording[@]}"} $java_opts \
  -cp "$classpath" io.kodiak.daemon.Main -c "$out/kodiak.conf" >"$out/logs/kodiak.log" 2>&1 &
kodiak=$!
pids+=("$kodiak")
for _ in $(seq 1 100); do daemon_port_open 127.0.0.1 9901 && daemon_port_open 127.0.0.1 9903 && break; sleep 0.1; done
daemon_port_open 127.0.0.1 9901 || { tail -n 20 "$out/logs/kodiak.log" >&2; exit 1; }

extra=()
[ "$handshake" = true ] && extra=(-H "Connection: close")
url="$scheme://localhost:9901/100b"
timeout 60 wrk -t2 -c80 -d15s ${extra[@]+"${extra[@]}"} "$url" >/dev/null 2>&1 || true
ticks() { read -r -a f <<<"$(sed 's/^.*) //' "/proc/$kodiak/stat")"; echo $((f[11] + f[12])); }
before=$(ticks)
timeout 60 wrk -t2 -c80 -d20s ${extra[@]+"${extra[@]}"} "$url" >"$out/logs/wrk.txt" 2>&1 || true
after=$(ticks)
requests=$(awk '/requests in/ {print $1}' "$out/logs/wrk.txt")
errors=$(awk '/Non-2xx/ {e += $NF} /Socket errors/ {gsub(",", ""); e += $4 + $6 + $8 + $10} END {print e + 0}' "$out/logs/wrk.txt")
hz=$(getconf CLK_TCK)
awk -v t=$((after - before)) -v r="$requests" -v hz="$hz" -v e="$errors" -v s="$scheme" -v h="$handshake" \
  'BEGIN { printf "%s%s: %.1f µs CPU per request, %.0f req/s, %d errors\n", s, h == "true" ? " handshake" : " keep-alive 100 B", r ? t / hz * 1e6 / r : 0, r / 20, e }'
if [ -n "$jfr" ]; then
  # The recording ends on its own schedule, just after the measured run; wait for its file.
  for _ in $(seq 1 100); do [ -s "$jfr" ] && break; sleep 0.1; done
  echo "JFR recording: $jfr"
fi
exit 0
