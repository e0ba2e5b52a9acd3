# The services a bench run starts (backend, proxies, stubs, a trace collector), each recorded with how it
# stops, and all stopped by pid, newest first, when the run ends (targets_stop_all in an EXIT trap), also
# on Ctrl-C or an error. A service lives in TARGETS_DIR/<name>/ with its config, pid file and logs. Sourced.
#
#   targets_init DIR LOG            where services live, and the log their start and stop output goes to
#   target_start NAME STARTER ARGS  runs STARTER NAME ARGS... (one of the start_* below) with its output in
#                                   the log; on failure prints the log's tail and returns 1
#   target_pid NAME                 the pid of a running service (returns 1 when it is not running)
#   target_stop NAME                stop one (SIGTERM, SIGKILL after 30 s)
#   targets_stop_all                stop every service still running, newest first
#
# Starters (each returns once the service accepts connections on 127.0.0.1:PORT):
#   start_nginx NAME PORT CONF          nginx in the foreground with CONF (its -p prefix: the service's dir)
#   start_haproxy NAME PORT CFG         HAProxy in the foreground (-db: the recorded pid is the proxy)
#   start_java_source NAME PORT CLASSPATH SOURCE ARGS...   a single-file Java program, with
#                                       bin/proxy.sh's JVM defaults and TARGETS_JAVA_OPTS
#   start_kodiak NAME PORT CONF JAVA_OPTS   Kodiak from TARGETS_KODIAK_HOME: by its bin/proxy.sh start, or
#                                       java -jar TARGETS_KODIAK_JAR when TARGETS_KODIAK_LAUNCH=java
#   start_stub NAME PORT                bin/stub.sh start: async, 500 ms (STUB_JAVA_OPTS for its JVM)
#   start_otlp_sink NAME PORT           bench/lib/otlp-sink.py: an OTLP/HTTP collector that counts and drops
# TARGETS_JAVA is the JDK 17 java the JVM services run on.

declare -A _target_kind=() _target_pidfile=() _target_marker=()
_targets_started=()
TARGETS_DIR="" TARGETS_LOG=/dev/null

targets_init() {
  TARGETS_DIR=$1 TARGETS_LOG=$2
  mkdir -p "$TARGETS_DIR" "$(dirname "$TARGETS_LOG")"
}

target_start() {
  local name=$1 starter=$2
  shift 2
  # Recorded before it is up, so that Ctrl-C during a slow start still stops it.
  _targets_started+=("$name")
  mkdir -p "$TARGETS_DIR/$name/logs"
  if ! "$starter" "$name" "$@" >>"$TARGETS_LOG" 2>&1; then
    echo "bench: $name did not start; last lines of $TARGETS_LOG:" >&2
    tail -n 15 "$TARGETS_LOG" | sed 's/^/    /' >&2
    return 1
  fi
}

# How a service stops: daemon_stop by pid file and marker, or its own script's stop command.
_target_record() { _target_kind[$1]=$2 _target_pidfile[$1]=$3 _target_marker[$1]=${4:-}; }

target_pid() {
  local file=${_target_pidfile[$1]:-} pid
  [ -n "$file" ] && [ -f "$file" ] || return 1
  pid=$(tr -dc '0-9' <"$file")
  [ -n "$pid" ] && [ -d "/proc/$pid" ] && echo "$pid"
}

target_stop() {
  local name=$1 dir=$TARGETS_DIR/$1 remaining=() s
  case ${_target_kind[$name]:-} in
    daemon) daemon_stop "$name" "${_target_pidfile[$name]}" "${_target_marker[$name]}" 30 ;;
    proxy.sh) PROXY_BASE=$dir PROXY_CONF=$dir/kodiak.conf "$TARGETS_KODIAK_HOME/bin/proxy.sh" stop ;;
    stub) STUB_BASE=$dir "$BENCH_ROOT/bin/stub.sh" stop ;;
  esac >>"$TARGETS_LOG" 2>&1 || true
  for s in "${_targets_started[@]}"; do [ "$s" = "$name" ] || remaining+=("$s"); done
  _targets_started=("${remaining[@]+"${remaining[@]}"}")
}

targets_stop_all() {
  local i
  for ((i = ${#_targets_started[@]} - 1; i >= 0; i--)); do target_stop "${_targets_started[i]}"; done
}

start_nginx() {
  local name=$1 port=$2 conf=$3 dir=$TARGETS_DIR/$1 nginx
  nginx=$(command -v nginx || echo /usr/sbin/nginx)
  mkdir -p "$dir/tmp"
  "$nginx" -t -q -p "$dir/" -c "$conf" -e "$dir/logs/error.log" || return 1
  _target_record "$name" daemon "$dir/daemon.pid" "-p $dir/"
  daemon_start "$name" "$dir/daemon.pid" "$dir/logs/console.log" "-p $dir/" 127.0.0.1 "$port" 30 -- \
    "$nginx" -p "$dir/" -c "$conf" -e "$dir/logs/error.log"
}

start_haproxy() {
  local name=$1 port=$2 cfg=$3 dir=$TARGETS_DIR/$1 haproxy
  haproxy=$(command -v haproxy || echo /usr/sbin/haproxy)
  "$haproxy" -c -q -f "$cfg" || return 1
  _target_record "$name" daemon "$dir/daemon.pid" "-C $dir"
  daemon_start "$name" "$dir/daemon.pid" "$dir/logs/console.log" "-C $dir" 127.0.0.1 "$port" 30 -- \
    "$haproxy" -db -C "$dir" -f "$cfg"
}

start_java_source() {
  local name=$1 port=$2 classpath=$3 source=$4 dir=$TARGETS_DIR/$1 opts=()
  shift 4
  read -r -a opts <<<"${TARGETS_JAVA_OPTS:-}"
  _target_record "$name" daemon "$dir/daemon.pid" "${source##*/} $port"
  daemon_start "$name" "$dir/daemon.pid" "$dir/logs/console.log" "${source##*/} $port" 127.0.0.1 "$port" 90 -- \
    "$TARGETS_JAVA" -Xms256m -Xmx1g -XX:+UseParallelGC ${opts[@]+"${opts[@]}"} -cp "$classpath" "$source" "$port" "$@"
}

start_kodiak() {
  local name=$1 port=$2 conf=$3 java_opts=$4 dir=$TARGETS_DIR/$1 opts=()
  if [ "${TARGETS_KODIAK_LAUNCH:-java}" = proxy.sh ]; then
    _target_record "$name" proxy.sh "$dir/proxy.pid"
    # bin/proxy.sh reads its configuration and its base directory from these; its own stop uses them too.
    PROXY_CONF=$conf PROXY_BASE=$dir JAVA_OPTS=$java_opts "$TARGETS_KODIAK_HOME/bin/proxy.sh" start || return 1
    [ -f "$dir/proxy.pid" ] || { echo "bin/proxy.sh wrote no $dir/proxy.pid" >&2; return 1; }
  else
    read -r -a opts <<<"$java_opts"
    _target_record "$name" daemon "$dir/daemon.pid" "-c $conf"
    daemon_start "$name" "$dir/daemon.pid" "$dir/logs/console.log" "-c $conf" 127.0.0.1 "$port" 90 -- \
      "$TARGETS_JAVA" ${opts[@]+"${opts[@]}"} -jar "$TARGETS_KODIAK_JAR" -c "$conf"
  fi
}

start_stub() {
  local name=$1 port=$2 dir=$TARGETS_DIR/$1
  _target_record "$name" stub "$dir/stub.pid"
  STUB_BASE=$dir STUB_PORT=$port STUB_DELAY_MS=500 STUB_MODE=async STUB_HOST=127.0.0.1 \
    JAVA_OPTS=${STUB_JAVA_OPTS:-} "$BENCH_ROOT/bin/stub.sh" start
}

start_otlp_sink() {
  local name=$1 port=$2 dir=$TARGETS_DIR/$1
  _target_record "$name" daemon "$dir/daemon.pid" "otlp-sink.py $port"
  daemon_start "$name" "$dir/daemon.pid" "$dir/logs/console.log" "otlp-sink.py $port" 127.0.0.1 "$port" 30 -- \
    python3 "$BENCH_ROOT/bench/lib/otlp-sink.py" "$port"
}
