#!/usr/bin/env bash
# Runs the real Mule 3.6.0 CE peers of the 2015 experiment (bench/mule) as a daemon:
#   bench/mule/mule.sh start|stop|status|run
# Environment:
#   MULE_BASE            pid file, logs/ and Mule's .mule/ working folder (default bench/mule/target/run)
#   MULE_STUB_PORT       port of the stub on 127.0.0.1 that every peer forwards to (default 8080)
#   MULE_PORT_PATTERN, MULE_PORT_JETTY, MULE_PORT_JETTY_NOCONT, MULE_PORT_HTTP, MULE_PORT_HTTP_NONPERSISTENT
#                        listener ports (defaults 9101, 9201, 9202, 9301, 9302)
#   MULE_JAVA_OPTS       extra JVM options
#   MULE_START_TIMEOUT   seconds to wait for all listeners (default 120)
set -euo pipefail

MULE_DIR=$(cd -P "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source=../../bin/lib/daemon.sh
source "$MULE_DIR/../../bin/lib/daemon.sh"

NAME="Mule peers"
HOST=127.0.0.1
MAIN_CLASS=io.kodiak.mule.MulePeers
JAR=$MULE_DIR/target/kodiak-mule-peers.jar
LIB=$MULE_DIR/target/lib

MULE_BASE=${MULE_BASE:-$MULE_DIR/target/run}
mkdir -p "$MULE_BASE/logs"
MULE_BASE=$(cd -P "$MULE_BASE" && pwd)
PIDFILE=$MULE_BASE/mule.pid
LOGFILE=$MULE_BASE/logs/mule.log
BUILD_LOG=$MULE_BASE/logs/build.log
MARKER="-Dkodiak.daemon=mule:$MULE_BASE"
STUB_PORT=${MULE_STUB_PORT:-8080}
START_TIMEOUT=${MULE_START_TIMEOUT:-120}

# property name : port, in the order the peers are listed in the brief
PORTS=(
  "mule.port.pattern:${MULE_PORT_PATTERN:-9101}"
  "mule.port.jetty:${MULE_PORT_JETTY:-9201}"
  "mule.port.jetty.nocont:${MULE_PORT_JETTY_NOCONT:-9202}"
  "mule.port.http:${MULE_PORT_HTTP:-9301}"
  "mule.port.http.nonpersistent:${MULE_PORT_HTTP_NONPERSISTENT:-9302}"
)

usage() {
  echo "usage: $0 start|stop|status|run" >&2
  exit 2
}

# Builds the jar and its lib/ when missing or older than the sources; Maven's output goes to a log.
ensure_built() {
  if [ -f "$JAR" ] && [ -d "$LIB" ] && [ -z "$(find "$MULE_DIR/src/main" "$MULE_DIR/pom.xml" -newer "$JAR" -print -quit)" ]; then
    return 0
  fi
  command -v mvn >/dev/null || { echo "mule.sh: mvn not found; Maven 3.8+ is needed to build the Mule peers" >&2; exit 1; }
  echo "building Mule peers… (log: $BUILD_LOG; the first build downloads Mule 3.6.0 from Maven Central)"
  if ! mvn -B -f "$MULE_DIR/pom.xml" -DskipTests package >"$BUILD_LOG" 2>&1; then
    echo "mule.sh: building the Mule peers failed; last lines of $BUILD_LOG:" >&2
    tail -n 30 "$BUILD_LOG" >&2
    exit 1
  fi
}

# Mule 3.6.0 fails on JDK 21+ (java.lang.Compiler is gone), so a newer default java is no use.
find_java() {
  local java
  if ! java=$(daemon_java 17); then
    echo "mule.sh: Mule 3.6.0 needs a JDK 17 (it does not start on JDK 21 or newer) and none was found" \
      "in JAVA_HOME, /usr/lib/jvm or PATH; install one, e.g. apt-get install -y openjdk-17-jdk-headless" >&2
    exit 1
  fi
  echo "$java"
}

java_command() {
  local java=$1 entry
  local cmd=("$java" "$MARKER" "-Dmule.workingDirectory=$MULE_BASE/.mule" "-Dmule.stub.port=$STUB_PORT")
  for entry in "${PORTS[@]}"; do cmd+=("-D${entry%%:*}=${entry##*:}"); done
  # shellcheck disable=SC2206 # word splitting of the options is intended
  cmd+=(${MULE_JAVA_OPTS:-} -cp "$JAR:$LIB/*" "$MAIN_CLASS")
  printf '%s\0' "${cmd[@]}"
}

port_of() { echo "${1##*:}"; }

start() {
  local pid entry java cmd=()
  if pid=$(daemon_pid "$PIDFILE" "$MARKER"); then
    echo "$NAME already running (pid $pid, pid file $PIDFILE); refusing to start a second one" >&2
    exit 1
  fi
  for entry in "${PORTS[@]}"; do
    if daemon_port_open "$HOST" "$(port_of "$entry")"; then
      echo "mule.sh: cannot start, $HOST:$(port_of "$entry") (${entry%%:*}) is already in use by another process" >&2
      exit 1
    fi
  done
  java=$(find_java)
  ensure_built
  mapfile -d '' cmd < <(java_command "$java")
  # Mule writes into its working directory; keep everything it might leave there under MULE_BASE.
  cd "$MULE_BASE"
  local started=$SECONDS
  daemon_start "$NAME" "$PIDFILE" "$LOGFILE" "$MARKER" "$HOST" "$(port_of "${PORTS[0]}")" "$START_TIMEOUT" -- "${cmd[@]}" || exit 1
  pid=$(tr -dc '0-9' <"$PIDFILE")
  for entry in "${PORTS[@]:1}"; do
    local left=$((START_TIMEOUT - (SECONDS - started)))
    [ "$left" -gt 0 ] || left=1
    if ! daemon_wait_port "$HOST" "$(port_of "$entry")" "$pid" "$left"; then
      echo "mule.sh: $HOST:$(port_of "$entry") (${entry%%:*}) did not accept connections; stopping; last lines of $LOGFILE:" >&2
      tail -n 25 "$LOGFILE" >&2
      daemon_stop "$NAME" "$PIDFILE" "$MARKER" 30 >&2
      exit 1
    fi
  done
  echo "$NAME started (pid $pid, JDK $java) on $(listeners), forwarding to $HOST:$STUB_PORT; log $LOGFILE"
}

listeners() {
  local entry out=()
  for entry in "${PORTS[@]}"; do out+=("$HOST:$(port_of "$entry")"); done
  echo "${out[*]}"
}

status() {
  local pid entry state
  if ! pid=$(daemon_pid "$PIDFILE" "$MARKER"); then
    echo "$NAME not running"
    exit 3
  fi
  echo "$NAME running (pid $pid, up $(daemon_uptime "$pid")s, base $MULE_BASE, stub $HOST:$STUB_PORT)"
  for entry in "${PORTS[@]}"; do
    state=closed
    daemon_port_open "$HOST" "$(port_of "$entry")" && state=accepting
    echo "  ${entry%%:*} $HOST:$(port_of "$entry") $state"
  done
}

run() {
  local java cmd=()
  java=$(find_java)
  ensure_built
  mapfile -d '' cmd < <(java_command "$java")
  cd "$MULE_BASE"
  exec "${cmd[@]}"
}

[ $# -eq 1 ] || usage
case $1 in
  start) start ;;
  stop) daemon_stop "$NAME" "$PIDFILE" "$MARKER" 30 ;;
  status) status ;;
  run) run ;;
  *) usage ;;
esac
