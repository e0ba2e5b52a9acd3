#!/usr/bin/env bash
# Kodiak as a daemon: bin/proxy.sh start|stop|restart|reload|status|check|run|version [-c FILE]
# Environment:
#   PROXY_CONF  the configuration (default conf/proxy.conf); -c FILE takes precedence
#   PROXY_BASE  the instance directory (default: this installation); holds proxy.pid and logs/
#   JAVA_OPTS   JVM options, placed after the defaults so they win; -Dproxy.<key>=<value> overrides any key
# Exit codes: 0 done, 1 failed (not started, already running, no answer to a reload), 2 bad usage or
# configuration (a reload refused: the running configuration stays), 3 not running (status, reload).
set -euo pipefail

# shellcheck source=lib/daemon.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib/daemon.sh"
BIN_DIR=$(daemon_script_dir "${BASH_SOURCE[0]}")
HOME_DIR=$(cd "$BIN_DIR/.." && pwd)
# Two layouts: a source checkout (pom.xml beside bin/) runs target/kodiak.jar + target/lib/, built on
# first start; an unpacked release archive (kodiak-VERSION.tar.gz) runs lib/ as it is, never builds.
if [ -f "$HOME_DIR/pom.xml" ]; then
  INSTALLED=false
else
  INSTALLED=true
fi
DIST_DIR=$HOME_DIR/target
DIST_JAR=$DIST_DIR/kodiak.jar
DIST_LIB=$DIST_DIR/lib
# How long start waits for the listener once the JVM runs (it is up in about a second).
START_SECONDS=60
# On top of the grace period, time for the JVM to close everything and exit after the drain.
STOP_MARGIN_SECONDS=15

usage() {
  cat >&2 <<EOF
usage: $(basename "$0") start|stop|restart|reload|status|check|run|version [-c FILE]
  start    build if needed, start in the background, return once the listener accepts connections
  stop     drain (finish in-flight exchanges within proxy.shutdown.grace-period) and stop
  restart  stop, then start
  reload   re-read the configuration (the running one's file, or -c FILE) without dropping anything;
           exit 0 applied, 2 refused (the running configuration stays), 3 not running
  status   exit 0 and a summary when running, 3 when not
  check    validate the configuration (as start and reload would) without starting anything;
           exit 0 valid, 2 each problem named (nginx -t, haproxy -c)
  run      in the foreground (systemd, containers); SIGTERM drains like stop
  version  Kodiak's version (also --version)
  -c FILE  configuration file (default \$PROXY_CONF, else $HOME_DIR/conf/proxy.conf)
environment: PROXY_CONF, PROXY_BASE (pid file and logs/; default $HOME_DIR), JAVA_OPTS (-Dproxy.<key>=<value> overrides a key)
EOF
}

# Usage and configuration errors.
fail() {
  echo "kodiak: $*" >&2
  exit 2
}

# Anything else that keeps Kodiak from starting.
die() {
  echo "kodiak: $*" >&2
  exit 1
}

# ------------------------------------------------------------------ arguments and paths

parse_args() {
  COMMAND=${1:-}
  [ $# -gt 0 ] && shift
  CONF_OPTION=
  while [ $# -gt 0 ]; do
    case $1 in
      -c) [ $# -ge 2 ] || { usage; exit 2; }; CONF_OPTION=$2; shift 2 ;;
      *) usage; exit 2 ;;
    esac
  done
}

resolve_conf() {
  CONF=${CONF_OPTION:-${PROXY_CONF:-$HOME_DIR/conf/proxy.conf}}
  # Relative to the caller's directory, before anything changes directory.
  [[ $CONF == /* ]] || CONF=$PWD/$CONF
  if [ ! -f "$CONF" ] || [ ! -r "$CONF" ]; then
    fail "configuration file $CONF does not exist or is not readable"
  fi
}

resolve_base() {
  PROXY_BASE=${PROXY_BASE:-$HOME_DIR}
  mkdir -p "$PROXY_BASE/logs"
  PROXY_BASE=$(cd "$PROXY_BASE" && pwd)
  LOG_DIR=$PROXY_BASE/logs
  PID_FILE=$PROXY_BASE/proxy.pid
  # The JVM's stdout and stderr: start-up errors, JVM warnings. Kodiak's own logs are kodiak.log and access.log.
  CONSOLE_LOG=$LOG_DIR/console.log
  # What the running instance runs with (listener, admin, grace period, routes, its file), for status,
  # stop and reload; written at start, rewritten by the daemon on each applied reload.
  SETTINGS_FILE=$LOG_DIR/proxy.settings
  # A reload request (an id, the file) and the daemon's answers (.<id> for this script, and the
  # latest), beside the pid file: the contract with io.kodiak.daemon.ControlFiles.
  RELOAD_REQUEST=$PROXY_BASE/proxy.reload
  RELOAD_RESULT=$PROXY_BASE/proxy.reload-result
  # The trailing space makes the marker match this base exactly, not a base nested below it.
  MARKER="-Dkodiak.daemon=proxy:$PROXY_BASE "
}

find_java() {
  JAVA=$(daemon_java 17) || die "no Java 17 found (JAVA_HOME, /usr/lib/jvm or PATH)"
}

# JAVA_OPTS as words; read -a splits on whitespace without expanding globs such as -Dx=*.
java_opts_words() {
  JAVA_OPTS_WORDS=()
  [ -n "${JAVA_OPTS:-}" ] && read -r -a JAVA_OPTS_WORDS <<<"$JAVA_OPTS"
  return 0
}

# ------------------------------------------------------------------ build and runtime copy

# Builds the distribution (target/kodiak.jar + target/lib/) when it is missing; serialised so
# parallel starts do not build over each other. Tests are not compiled: a half-edited test must
# not keep the daemon from starting.
ensure_built() {
  if [ "$INSTALLED" = true ]; then
    compgen -G "$HOME_DIR/lib/*.jar" >/dev/null || die "no jars in $HOME_DIR/lib: the installation is incomplete"
    return 0
  fi
  if [ -f "$DIST_JAR" ] && [ -d "$DIST_LIB" ]; then
    warn_if_stale
    return 0
  fi
  command -v mvn >/dev/null || die "Kodiak is not built and Maven (mvn) is not installed"
  mkdir -p "$DIST_DIR"
  local build_log=$LOG_DIR/build.log
  exec 9>"$DIST_DIR/.build.lock"
  flock 9
  if [ ! -f "$DIST_JAR" ] || [ ! -d "$DIST_LIB" ]; then
    echo "building Kodiak… (output in $build_log)"
    if ! JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$JAVA")")") \
        mvn -B -q -f "$HOME_DIR/pom.xml" -Dmaven.test.skip=true -DskipTlsSuite=true package >"$build_log" 2>&1; then
      echo "kodiak: the build failed; last lines of $build_log:" >&2
      tail -n 25 "$build_log" >&2
      exit 1
    fi
  fi
  exec 9>&-
}

# An existing build is used as it is: rebuilding here could collide with a Maven run already
# writing target/ (tests run this script from inside one). Newer sources get a one-line note.
warn_if_stale() {
  local newer
  newer=$(find "$HOME_DIR/pom.xml" "$HOME_DIR/src/main" -newer "$DIST_JAR" -type f -print -quit 2>/dev/null || true)
  if [ -n "$newer" ]; then
    echo "note: ${newer#"$HOME_DIR"/} is newer than target/kodiak.jar; run 'mvn -B -DskipTests package' to rebuild" >&2
  fi
  return 0
}

# Maven rewrites target/kodiak.jar and target/lib/ in place, which would pull classes out from
# under a running JVM whenever someone rebuilds; so each instance runs from a copy named by its
# content, which no build touches.
snapshot_dist() {
  local sum dir tmp
  if [ "$INSTALLED" = true ]; then
    # An installation is replaced as a whole (a new directory per version), never rebuilt in place.
    CLASSPATH_ARG="$HOME_DIR/lib/*"
    return 0
  fi
  sum=$(cat "$DIST_JAR" "$DIST_LIB"/*.jar | sha1sum | cut -c1-12)
  dir=$DIST_DIR/runtime/kodiak-$sum
  if [ ! -f "$dir/kodiak.jar" ]; then
    mkdir -p "$DIST_DIR/runtime"
    tmp=$(mktemp -d "$DIST_DIR/runtime/.copy.XXXXXX")
    mkdir "$tmp/lib"
    cp "$DIST_LIB"/*.jar "$tmp/lib/"
    cp "$DIST_JAR" "$tmp/kodiak.jar"
    # Another start may have made the same copy meanwhile; either one is fine.
    mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
  fi
  CLASSPATH_ARG="$dir/kodiak.jar:$dir/lib/*"
}

# ------------------------------------------------------------------ settings

# Validates the configuration and reads what the script needs from it, through the JVM with the
# same file and the same -D overrides as the daemon. Exits 2 with Kodiak's messages when it is invalid.
read_settings() {
  java_opts_words
  local overrides=() word output
  # Only the config overrides: other options (heap, logging) are the daemon's, and a logging config
  # would have this short-lived JVM create log files.
  for word in ${JAVA_OPTS_WORDS[@]+"${JAVA_OPTS_WORDS[@]}"}; do
    [[ $word == -Dproxy.* ]] && overrides+=("$word")
  done
  # From the daemon's working directory (PROXY_BASE), where relative paths in the file resolve.
  if ! output=$(cd "$PROXY_BASE" && "$JAVA" -Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC ${overrides[@]+"${overrides[@]}"} \
      -cp "$CLASSPATH_ARG" io.kodiak.daemon.Main --print-settings -c "$CONF" 2>&1); then
    echo "$output" >&2
    exit 2
  fi
  SETTINGS=$output
  parse_settings <<<"$SETTINGS"
  [ "$LISTENER_PORT" != 0 ] || fail "proxy.listener.port = 0 (any free port) is for tests; the daemon needs a fixed port"
  local more
  for more in ${MORE_LISTENERS[@]+"${MORE_LISTENERS[@]}"}; do
    [[ $more != *:0 ]] || fail "a port 0 (any free port) in proxy.listeners is for tests; the daemon needs fixed ports"
  done
  if [ "$ADMIN_ENABLED" = true ] && [ "$ADMIN_PORT" = 0 ]; then
    fail "proxy.admin.port = 0 (any free port) is for tests; the daemon needs a fixed port"
  fi
}

# Reads key=value lines (from read_settings or the settings file) into shell variables.
parse_settings() {
  LISTENER_HOST=127.0.0.1 LISTENER_PORT=9401 LISTENER_SCHEME=http ADMIN_ENABLED=false ADMIN_HOST=127.0.0.1 ADMIN_PORT=9481
  GRACE_SECONDS=30 ROUTES=() MORE_LISTENERS=() MORE_ADDRESSES=() CONFIG_FILE=
  TRACING_ENABLED=false TRACING_SAMPLER= TRACING_ENDPOINT=
  local key value scheme host port
  while IFS='=' read -r key value; do
    case $key in
      listener_host) LISTENER_HOST=$value ;;
      listener_port) LISTENER_PORT=$value ;;
      listener_scheme) LISTENER_SCHEME=$value ;;
      more_listener)
        read -r scheme host port <<<"$value"
        MORE_LISTENERS+=("$scheme://$(url_host "$host"):$port")
        MORE_ADDRESSES+=("$host $port") ;;
      admin_enabled) ADMIN_ENABLED=$value ;;
      admin_host) ADMIN_HOST=$value ;;
      admin_port) ADMIN_PORT=$value ;;
      grace_seconds) GRACE_SECONDS=$value ;;
      tracing_enabled) TRACING_ENABLED=$value ;;
      tracing_sampler) TRACING_SAMPLER=$value ;;
      tracing_endpoint) TRACING_ENDPOINT=$value ;;
      route) ROUTES+=("$value") ;;
      config_file) CONFIG_FILE=$value ;;
    esac
  done
}

# Reads the settings the running instance was started with; false when they were not recorded.
load_recorded_settings() {
  [ -f "$SETTINGS_FILE" ] || return 1
  parse_settings <"$SETTINGS_FILE"
}

url_host() {
  [[ $1 == *:* ]] && echo "[$1]" || echo "$1"
}

listener_url() {
  echo "$LISTENER_SCHEME://$(url_host "$LISTENER_HOST"):$LISTENER_PORT"
}

# proxy.listener's URL, then those of proxy.listeners, comma-separated.
listener_urls() {
  local urls more
  urls=$(listener_url)
  for more in ${MORE_LISTENERS[@]+"${MORE_LISTENERS[@]}"}; do
    urls+=", $more"
  done
  echo "$urls"
}

admin_url() {
  echo "http://$(url_host "$ADMIN_HOST"):$ADMIN_PORT"
}

print_routes() {
  local route
  for route in ${ROUTES[@]+"${ROUTES[@]}"}; do
    echo "  route     $route"
  done
}

# ------------------------------------------------------------------ the JVM command

java_command() {
  java_opts_words
  JAVA_CMD=("$JAVA" "-Dkodiak.daemon=proxy:$PROXY_BASE" "-Dkodiak.pid-file=$PID_FILE" "-DPROXY_LOG_DIR=$LOG_DIR"
    "-Dkodiak.settings-file=$SETTINGS_FILE"
    "-Dlogback.configurationFile=$HOME_DIR/conf/logback.xml"
    -Xms256m -Xmx1g -XX:+ExitOnOutOfMemoryError "-XX:ErrorFile=$LOG_DIR/hs_err_pid%p.log" -Dfile.encoding=UTF-8
    -Djdk.tls.rejectClientInitiatedRenegotiation=true)
  # ParallelGC, measured against G1 with bin/bench.sh throughput (README, docs/throughput.md): a
  # proxy's thousands of long-lived connections point at short-lived exchanges, and G1 pays for
  # each such pointer in its write barrier and refinement threads (37 % of Kodiak's CPU at 8,000
  # connections). The JVM refuses two collectors, so this is the default only when JAVA_OPTS picks none.
  local word gc_chosen=false
  for word in ${JAVA_OPTS_WORDS[@]+"${JAVA_OPTS_WORDS[@]}"}; do
    [[ $word =~ ^-XX:\+Use[A-Za-z0-9]*GC$ ]] && gc_chosen=true
  done
  if [ "$gc_chosen" = false ]; then
    JAVA_CMD+=(-XX:+UseParallelGC)
  fi
  # -Xlog cannot take a file name containing its own separators.
  if [[ $LOG_DIR != *[:,=\ ]* ]]; then
    JAVA_CMD+=("-Xlog:gc*:file=$LOG_DIR/gc.log:time,uptime,level,tags:filecount=5,filesize=10m")
  fi
  JAVA_CMD+=(${JAVA_OPTS_WORDS[@]+"${JAVA_OPTS_WORDS[@]}"} -cp "$CLASSPATH_ARG" io.kodiak.daemon.Main -c "$CONF")
}

# Everything start and run share up to the command line.
prepare() {
  resolve_conf
  find_java
  ensure_built
  snapshot_dist
  read_settings
  java_command
}

record_settings() {
  printf '%s\nconfig_file=%s\n' "$SETTINGS" "$CONF" >"$SETTINGS_FILE"
  rm -f "$RELOAD_REQUEST" "$RELOAD_RESULT" "$RELOAD_RESULT".*
}

refuse_if_running() {
  local pid
  if pid=$(daemon_pid "$PID_FILE" "$MARKER"); then
    local where=
    load_recorded_settings && where=", listening on $(listener_urls)"
    echo "Kodiak is already running (pid $pid$where, base $PROXY_BASE); refusing to start a second one" >&2
    exit 1
  fi
}

# ------------------------------------------------------------------ commands

cmd_start() {
  resolve_base
  refuse_if_running
  prepare
  if [ "$ADMIN_ENABLED" = true ] && daemon_port_open "$ADMIN_HOST" "$ADMIN_PORT"; then
    echo "Kodiak: cannot start, the admin address $ADMIN_HOST:$ADMIN_PORT (proxy.admin) is already in use by another process" >&2
    exit 1
  fi
  local address
  for address in ${MORE_ADDRESSES[@]+"${MORE_ADDRESSES[@]}"}; do
    # shellcheck disable=SC2086 # "host port", split on purpose
    if daemon_port_open $address; then
      echo "Kodiak: cannot start, the address ${address/ /:} (proxy.listeners) is already in use by another process" >&2
      exit 1
    fi
  done
  record_settings
  # One start per file, so a failed start shows its own last lines; the previous run's stay in console.log.1.
  [ -f "$CONSOLE_LOG" ] && mv -f "$CONSOLE_LOG" "$CONSOLE_LOG.1"
  # The JVM's working directory is the instance's, so nothing it writes lands where start was called.
  cd "$PROXY_BASE"
  if ! daemon_start Kodiak "$PID_FILE" "$CONSOLE_LOG" "$MARKER" "$LISTENER_HOST" "$LISTENER_PORT" \
      "$START_SECONDS" -- "${JAVA_CMD[@]}"; then
    rm -f "$SETTINGS_FILE"
    exit 1
  fi
  echo "Kodiak started: pid $(cat "$PID_FILE"), listening on $(listener_urls)"
  print_routes
  if [ "$ADMIN_ENABLED" = true ]; then
    echo "  admin     $(admin_url)/health, $(admin_url)/metrics"
  fi
  echo "  config    $CONF"
  echo "  logs      $LOG_DIR/"
}

cmd_stop() {
  resolve_base
  GRACE_SECONDS=30
  load_recorded_settings || true
  daemon_stop Kodiak "$PID_FILE" "$MARKER" $((GRACE_SECONDS + STOP_MARGIN_SECONDS))
  rm -f "$SETTINGS_FILE"
}

format_duration() {
  local s=$1
  if ((s >= 86400)); then
    printf '%dd %02dh %02dm' $((s / 86400)) $((s % 86400 / 3600)) $((s % 3600 / 60))
  elif ((s >= 3600)); then
    printf '%dh %02dm %02ds' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
  else
    printf '%dm %02ds' $((s / 60)) $((s % 60))
  fi
}

# GET PATH from the admin listener with bash's /dev/tcp (no curl needed); prints the body.
admin_get() {
  local response
  # shellcheck disable=SC2016 # expanded by the inner bash, from its arguments
  response=$(timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1" || exit 1
    printf "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" "$2" "$0" >&3
    cat <&3' "$ADMIN_HOST" "$ADMIN_PORT" "$1" 2>/dev/null) || return 1
  [ -n "$response" ] || return 1
  printf '%s\n' "${response#*$'\r\n\r\n'}"
}

# The live part of status, from /health and /metrics.
print_live_state() {
  if [ "$ADMIN_ENABLED" != true ]; then
    echo "  live      in-flight and upstream pool use need the admin listener (proxy.admin.enabled = false)"
    return
  fi
  local health metrics
  if ! health=$(admin_get /health) || ! metrics=$(admin_get /metrics); then
    echo "  admin     $(admin_url) is not answering"
    return
  fi
  echo "  health    $(sed -n 's/.*"status":"\([A-Z]*\)".*/\1/p' <<<"$health") ($(admin_url)/health)"
  echo "  config    generation $(sed -n 's/.*"generation":\([0-9]*\).*/\1/p' <<<"$health"), loaded $(sed -n 's/.*"loaded_at":"\([^"]*\)".*/\1/p' <<<"$health")${CONFIG_FILE:+ from $CONFIG_FILE}"
  awk '
    function value(line) { v = line; sub(/.* /, "", v); return v + 0 }
    function label(line, name) { u = line; if (!sub(".*[{,]" name "=\"", "", u)) return ""; sub(/".*/, "", u); return u }
    # One key per server of a group: "group server".
    function upstream(line) { return label(line, "group") " " label(line, "upstream") }
    /^kodiak_inflight_exchanges /      { inflight = value($0) }
    /^kodiak_client_connections /      { clients = value($0) }
    /^kodiak_client_connections_max /  { clients_max = value($0) }
    /^kodiak_listener_accept_pauses_total / { pauses = value($0) }
    /^kodiak_tracing_spans_dropped_total / { traced = 1; dropped = value($0) }
    /^kodiak_tracing_spans_exported_total / { exported = value($0) }
    /^kodiak_requests_total\{/          { requests += value($0) }
    /^kodiak_upstream_pool_open\{/      { u = upstream($0); seen[u] = 1; open[u] = value($0) }
    /^kodiak_upstream_pool_idle\{/      { idle[upstream($0)] = value($0) }
    /^kodiak_upstream_pool_leased\{/    { leased[upstream($0)] = value($0) }
    /^kodiak_upstream_pool_pending\{/   { pending[upstream($0)] = value($0) }
    /^kodiak_upstream_pool_max\{/       { max[upstream($0)] = value($0) }
    /^kodiak_upstream_pool_h2\{/        { h2[upstream($0)] = 1 }
    /^kodiak_upstream_server_state\{/   { if (value($0) == 1) state[upstream($0)] = label($0, "state") }
    /^kodiak_upstream_server_in_flight\{/ { busy[upstream($0)] = value($0) }
    /^kodiak_upstream_server_failures_total\{/ { fails[upstream($0)] = value($0) }
    END {
      printf "  clients   %d connections open of max %d (accepting paused %d times at the max)\n", clients, clients_max, pauses
      printf "  in flight %d exchanges (%d requests since start)\n", inflight, requests
      if (traced) printf "  spans     %d exported, %d dropped (export queue full)\n", exported, dropped
      n = 0
      for (u in seen) keys[++n] = u
      # Sorted, so that a group'"'"'s servers are listed together.
      for (i = 2; i <= n; i++) { k = keys[i]; for (j = i - 1; j >= 1 && keys[j] > k; j--) keys[j + 1] = keys[j]; keys[j + 1] = k }
      for (i = 1; i <= n; i++) {
        u = keys[i]; split(u, parts, " ")
        # A route'"'"'s own host:port is a group of one named after it: shown once.
        name = parts[1] == parts[2] ? parts[2] : parts[1] " " parts[2]
        if (h2[u])
          printf "  upstream  %s: %s, %d in flight, %d failures; %d h2 connections of max %d\n",
            name, state[u], busy[u], fails[u], open[u], max[u]
        else
          printf "  upstream  %s: %s, %d in flight, %d failures; %d open (%d leased, %d idle) of max %d, %d waiting\n",
            name, state[u], busy[u], fails[u], open[u], leased[u], idle[u], max[u], pending[u]
      }
    }' <<<"$metrics"
  print_resolved_names
}

# Each upstream name resolved while Kodiak runs (resolve = true, discovery), from /upstreams: its
# addresses now, when it last resolved, and why lookups fail while they do. /upstreams writes each
# entry flat ({"name":...} with no object inside), so one grep picks each.
print_resolved_names() {
  local upstreams entries entry name type addresses resolved failing
  upstreams=$(admin_get /upstreams) || return 0
  [[ "$upstreams" == *'"resolved":['* ]] || return 0
  # No name resolved at run time: nothing to print (grep finds nothing, which is no failure here).
  entries=$(grep -o '{"name":"[^}]*}' <<<"${upstreams#*\"resolved\":[}") || return 0
  while IFS= read -r entry; do
    name=$(sed -n 's/^{"name":"\([^"]*\)".*/\1/p' <<<"$entry")
    type=$(sed -n 's/.*"type":"\([^"]*\)".*/\1/p' <<<"$entry")
    # Up to the key after the list: an IPv6 address in brackets ends no list.
    addresses=$(sed -n 's/.*"addresses":\[\(.*\)\],"resolved_at".*/\1/p' <<<"$entry" | tr -d '"' | sed 's/,/, /g')
    resolved=$(sed -n 's/.*"resolved_at":"\([^"]*\)".*/\1/p' <<<"$entry")
    failing=$(sed -n 's/.*"failing":"\([^"]*\)".*/\1/p' <<<"$entry")
    echo "  resolved  $name ($type): ${addresses:-no address}, last resolved ${resolved:-never}${failing:+; failing: $failing}"
  done <<<"$entries"
}

cmd_status() {
  resolve_base
  local pid
  if ! pid=$(daemon_pid "$PID_FILE" "$MARKER"); then
    if [ -f "$PID_FILE" ]; then
      echo "Kodiak is not running (stale pid file $PID_FILE; base $PROXY_BASE)"
    else
      echo "Kodiak is not running (base $PROXY_BASE)"
    fi
    exit 3
  fi
  local uptime
  uptime=$(daemon_uptime "$pid")
  echo "Kodiak is running: pid $pid, up $(format_duration "${uptime:-0}"), base $PROXY_BASE"
  if load_recorded_settings; then
    echo "  listener  $(listener_urls)"
    # As it runs: proxy.tracing is restart only, and the daemon records the running values.
    if [ "$TRACING_ENABLED" = true ]; then
      echo "  tracing   on: sampler $TRACING_SAMPLER, spans to $TRACING_ENDPOINT"
    else
      echo "  tracing   off"
    fi
    print_routes
    print_live_state
  else
    echo "  (no settings recorded in $SETTINGS_FILE: listener and routes unknown)"
  fi
  exit 0
}

# Asks the running instance to reload and prints its answer. The daemon validates the file itself
# (with its own -D overrides) and answers in $RELOAD_RESULT.<id>; nothing is applied unless all of
# it is valid. Reloads through this script are serialised (flock), so each finds its own request.
cmd_reload() {
  resolve_base
  local pid
  if ! pid=$(daemon_pid "$PID_FILE" "$MARKER"); then
    echo "Kodiak is not running (base $PROXY_BASE); nothing to reload" >&2
    exit 3
  fi
  local conf=
  if [ -n "$CONF_OPTION" ]; then
    resolve_conf
    conf=$CONF
  fi
  exec 8>"$PROXY_BASE/.reload.lock"
  flock 8
  local id tmp answer_file answer
  id="$$-$(date +%s%N)"
  answer_file=$RELOAD_RESULT.$id
  tmp=$(mktemp "$PROXY_BASE/.reload.XXXXXX")
  printf '%s\n%s\n' "$id" "$conf" >"$tmp"
  # Readable by the daemon, which may run as another user than this script.
  chmod 644 "$tmp"
  mv -f "$tmp" "$RELOAD_REQUEST"
  kill -HUP "$pid"
  # A reload takes well under a second; a minute covers a JVM that is busy or short of memory.
  local deadline=$((SECONDS + 60))
  until [ -f "$answer_file" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "Kodiak (pid $pid) exited before answering the reload; see $LOG_DIR/console.log and kodiak.log" >&2
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      echo "Kodiak (pid $pid) did not answer the reload within 60 s; see $LOG_DIR/kodiak.log" >&2
      exit 1
    fi
    sleep 0.02
  done
  answer=$(cat "$answer_file")
  rm -f "$answer_file"
  local result generation file
  result=$(sed -n 's/^result=//p' <<<"$answer")
  generation=$(sed -n 's/^generation=//p' <<<"$answer")
  file=$(sed -n 's/^config_file=//p' <<<"$answer")
  case $result in
    applied)
      echo "Kodiak reloaded: configuration generation $generation from $file"
      sed -n 's/^line=/  /p' <<<"$answer"
      exit 0 ;;
    refused)
      echo "kodiak: reload refused${file:+, $file}: the running configuration (generation $generation) stays" >&2
      sed -n 's/^line=/  /p' <<<"$answer" >&2
      exit 2 ;;
    *)
      echo "kodiak: reload failed: the running configuration (generation $generation) stays; see $LOG_DIR/kodiak.log" >&2
      sed -n 's/^line=/  /p' <<<"$answer" >&2
      exit 1 ;;
  esac
}

cmd_run() {
  resolve_base
  refuse_if_running
  prepare
  record_settings
  cd "$PROXY_BASE"
  echo "Kodiak running in the foreground on $(listener_urls) (pid $$); logs in $LOG_DIR/" >&2
  # exec keeps this pid, so status and stop work on a foreground instance too.
  echo $$ >"$PID_FILE"
  exec "${JAVA_CMD[@]}"
}

cmd_check() {
  resolve_base
  resolve_conf
  find_java
  ensure_built
  snapshot_dist
  read_settings
  echo "configuration OK: $CONF ($(grep -c '^route=' <<<"$SETTINGS") routes; listening on $(listener_urls))"
}

cmd_version() {
  # An installation is not written to (no logs/ for a version); a checkout may need its first build.
  [ "$INSTALLED" = true ] || resolve_base
  find_java
  ensure_built
  snapshot_dist
  "$JAVA" -Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$CLASSPATH_ARG" io.kodiak.daemon.Main --version
}

parse_args "$@"
case $COMMAND in
  version | --version) cmd_version ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  restart) cmd_stop; cmd_start ;;
  reload) cmd_reload ;;
  status) cmd_status ;;
  check) cmd_check ;;
  run) cmd_run ;;
  -h | --help | help) usage; exit 0 ;;
  *) usage; exit 2 ;;
esac
