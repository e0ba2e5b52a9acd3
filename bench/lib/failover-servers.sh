# The three servers the failover and reload benches put behind each proxy (bench/failover/FailoverStub.java)
# and the load they send through it (bench/failover/FailoverLoad.java), as services of bench/lib/targets.sh.
# Sourced after common.sh.
#
#   SERVER_PORTS                      the three servers' ports; the bench sets them
#   server_start I DELAY_MS LOG       server I (0, 1 or 2; service "server-I", named sI+1 in its answers) on
#                                     SERVER_PORTS[I], answering after DELAY_MS; its request lines go to LOG
#   server_kill I                     kill -9, as a crash; returns once the process is gone
#   failover_load PORT CONNECTIONS SECONDS OUT PREFIX
#                                     FailoverLoad's keep-alive clients (half GET, half POST) for SECONDS,
#                                     one line per request in OUT (ids PREFIX-*); killed 30 s past SECONDS
# TARGETS_JAVA is the JDK 17 java both run on.

SERVER_PORTS=()
_failover_dir=$BENCH_ROOT/bench/failover

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
