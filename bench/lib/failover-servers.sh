# The three servers the failover and reload benches put behind each proxy (bench/failover/FailoverStub.java)
# and the load they send through it (bench/failover/FailoverLoad.java), as services of bench/lib/targets.sh.
# Sourced after common.sh.
#
#   bench_ports ENV_NAME DEFAULT     the ports from the base in $ENV_NAME (else DEFAULT): PORT[kodiak],
#                                     PORT[nginx], PORT[haproxy] on +1..+3, PORT[admin] (Kodiak's admin
#                                     listener) on +81, SERVER_PORTS the three servers' on +11..+13; exit 2
#                                     when the base is not a port from 1024 to 65400
#   server_start I DELAY_MS LOG       server I (0, 1 or 2; service "server-I", named sI+1 in its answers) on
#                                     SERVER_PORTS[I], answering after DELAY_MS; its request lines go to LOG
#   server_kill I                     kill -9, as a crash; returns once the process is gone
#   failover_load PORT CONNECTIONS SECONDS OUT PREFIX
#                                     FailoverLoad's keep-alive clients (half GET, half POST) for SECONDS,
#                                     one line per request in OUT (ids PREFIX-*); killed 30 s past SECONDS
#   wait_for_load PORT                returns once a client is connected to 127.0.0.1:PORT; 1 after 60 s
# TARGETS_JAVA is the JDK 17 java both run on.

SERVER_PORTS=()
declare -A PORT=()
_failover_dir=$BENCH_ROOT/bench/failover

bench_ports() {
  local base=${!1:-$2}
  [[ $base =~ ^[0-9]+$ ]] && ((base >= 1024 && base <= 65400)) || { echo "$1 must be a port from 1024 to 65400" >&2; exit 2; }
  PORT=([kodiak]=$((base + 1)) [nginx]=$((base + 2)) [haproxy]=$((base + 3)) [admin]=$((base + 81)))
  SERVER_PORTS=($((base + 11)) $((base + 12)) $((base + 13)))
}

server_start() {
  local i=$1 delay_ms=$2 log=$3
  # A small heap is enough for a server that sleeps and answers a few bytes; no Nagle delay on its answers.
  TARGETS_JAVA_OPTS="-Xmx256m -Dsun.net.httpserver.nodelay=true" \
    target_start "server-$i" start_java_source "${SERVER_PORTS[$i]}" "$_failover_dir" "$_failover_dir/FailoverStub.java" \
    "$delay_ms" "$log" "s$((i + 1))"
}

server_kill() {
  local pid
  pid=$(target_pid "server-$1") || return 0
  kill -KILL "$pid"
  # The server is this shell's child (daemon_start): reaped here, or it would linger as a zombie that
  # kill -0 still finds, and bash would report the killed job.
  wait "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  # Forgotten, so that server_start can start it again as a new service and the run's end stops it once.
  target_stop "server-$1"
}

failover_load() {
  local port=$1 connections=$2 seconds=$3 out=$4 prefix=$5
  timeout $((seconds + 30)) "$TARGETS_JAVA" -Xmx512m "$_failover_dir/FailoverLoad.java" "$port" "$connections" "$seconds" "$out" "$prefix"
}

# FailoverLoad is compiled from source as its JVM starts, which takes seconds on a busy machine, and its
# SECONDS count from then: a run's events (a kill, the first reload) are timed from its first connection,
# not from its launch, or they could come before the load does.
wait_for_load() {
  local port=$1 deadline=$((SECONDS + 60))
  until [ -n "$(ss -Htn state established "( dport = :$port )" 2>/dev/null)" ]; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

# nginx_head DIR: the part of an nginx.conf both benches' nginx shares (one worker pair, files under DIR, no
# access log), up to the inside of its http block.
nginx_head() {
  local dir=$1
  cat <<CONF
daemon off;
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
  uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
CONF
}
