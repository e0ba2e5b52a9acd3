#!/usr/bin/env bash
# The proxied service stub as a daemon: bin/stub.sh start|stop|status|run
# Environment: STUB_PORT (8080), STUB_DELAY_MS (500), STUB_MODE (async|blocking), STUB_HOST (127.0.0.1),
# STUB_THREADS (8 async / 200 blocking), STUB_BASE (the repository root; holds stub.pid and logs/stub.log),
# JAVA_OPTS (extra JVM options; the collector is ZGC unless they name another).
set -euo pipefail

# shellcheck source=lib/daemon.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib/daemon.sh"
BIN_DIR=$(daemon_script_dir "${BASH_SOURCE[0]}")
REPO_DIR=$(cd "$BIN_DIR/.." && pwd)
STUB_DIR=$REPO_DIR/stub
STUB_JAR=$STUB_DIR/target/kodiak-stub.jar

usage() {
  cat >&2 <<EOF
usage: $(basename "$0") start|stop|status|run
  STUB_PORT=${STUB_PORT:-8080} STUB_DELAY_MS=${STUB_DELAY_MS:-500} STUB_MODE=${STUB_MODE:-async} STUB_HOST=${STUB_HOST:-127.0.0.1}
  STUB_BASE=${STUB_BASE:-$REPO_DIR} (pid file and logs/)  STUB_THREADS (Tomcat worker threads)  JAVA_OPTS
EOF
}

fail() {
  echo "stub: $*" >&2
  exit 2
}

# require_integer NAME VALUE MIN MAX DESCRIPTION
require_integer() {
  local name=$1 value=$2 min=$3 max=$4 expected=$5
  if ! [[ $value =~ ^[0-9]{1,10}$ ]] || ((10#$value < min || 10#$value > max)); then
    fail "$name='$value' is not valid: expected $expected"
  fi
}

validate_settings() {
  STUB_PORT=${STUB_PORT:-8080}
  STUB_DELAY_MS=${STUB_DELAY_MS:-500}
  STUB_MODE=${STUB_MODE:-async}
  STUB_HOST=${STUB_HOST:-127.0.0.1}
  require_integer STUB_PORT "$STUB_PORT" 1 65535 "an integer from 1 to 65535"
  require_integer STUB_DELAY_MS "$STUB_DELAY_MS" 0 2147483647 "an integer from 0 upwards"
  case $STUB_MODE in
    async | blocking) ;;
    *) fail "STUB_MODE='$STUB_MODE' is not valid: expected one of async, blocking" ;;
  esac
  if [ -n "${STUB_THREADS:-}" ]; then
    require_integer STUB_THREADS "$STUB_THREADS" 1 10000 "an integer from 1 to 10000"
  fi
  # Normalise so Java sees exactly what was validated (no leading zeros read differently).
  STUB_PORT=$((10#$STUB_PORT))
  STUB_DELAY_MS=$((10#$STUB_DELAY_MS))
}

resolve_base() {
  STUB_BASE=${STUB_BASE:-$REPO_DIR}
  mkdir -p "$STUB_BASE/logs"
  STUB_BASE=$(cd "$STUB_BASE" && pwd)
  PID_FILE=$STUB_BASE/stub.pid
  LOG_FILE=$STUB_BASE/logs/stub.log
  # The trailing space makes the marker match this base exactly, not a base nested below it.
  MARKER="-Dkodiak.daemon=stub:$STUB_BASE "
}

find_java() {
  JAVA=$(daemon_java 17) || fail "no Java 17 found (JAVA_HOME, /usr/lib/jvm or PATH)"
}

# Builds the runnable jar when it is missing; serialised so parallel starts do not build over each other.
ensure_built() {
  [ -f "$STUB_JAR" ] && [ -d "$STUB_DIR/target/lib" ] && return 0
  command -v mvn >/dev/null || fail "the stub is not built and Maven (mvn) is not installed"
  mkdir -p "$STUB_DIR/target"
  local build_log=$STUB_BASE/logs/stub-build.log
  exec 9>"$STUB_DIR/target/.build.lock"
  flock 9
  if [ ! -f "$STUB_JAR" ] || [ ! -d "$STUB_DIR/target/lib" ]; then
    echo "building stub… (output in $build_log)"
    if ! JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$JAVA")")") \
        mvn -B -f "$STUB_DIR/pom.xml" -DskipTests package >"$build_log" 2>&1; then
      echo "stub: the build failed; last lines of $build_log:" >&2
      tail -n 25 "$build_log" >&2
      exit 1
    fi
  fi
  exec 9>&-
}

# Maven rewrites target/kodiak-stub.jar in place (same inode), which would pull classes out from under a running
# stub whenever the tests run; so each stub runs from a copy named by its content, which no build touches.
snapshot_jar() {
  local sum snapshot
  sum=$(sha1sum "$STUB_JAR" | cut -c1-12)
  snapshot=$STUB_DIR/target/runtime/kodiak-stub-$sum.jar
  if [ ! -f "$snapshot" ]; then
    mkdir -p "$(dirname "$snapshot")"
    cp "$STUB_JAR" "$snapshot.$$"
    mv -f "$snapshot.$$" "$snapshot"
  fi
  echo "$snapshot"
}

java_command() {
  local snapshot
  snapshot=$(snapshot_jar)
  JAVA_CMD=("$JAVA")
  local opts=()
  if [ -n "${JAVA_OPTS:-}" ]; then
    # JAVA_OPTS is a list of options by convention, so word splitting is intended here.
    # shellcheck disable=SC2206
    opts=($JAVA_OPTS)
  fi
  # ZGC unless JAVA_OPTS picks a collector. The stub is the service every bench compares against, so its
  # own pauses must not decide which target looks slow: under the default G1, its young pauses grew to
  # 230 and 243 ms in a 10x Gatling run (Tomcat keeps about 100 KB per connection, 2,000 connections) and
  # landed in whichever target ran then; under ZGC every pause is under a millisecond (docs/stub.md).
  local word gc_chosen=false
  for word in ${opts[@]+"${opts[@]}"}; do
    [[ $word =~ ^-XX:\+Use[A-Za-z0-9]*GC$ ]] && gc_chosen=true
  done
  [ "$gc_chosen" = true ] || JAVA_CMD+=(-XX:+UseZGC)
  JAVA_CMD+=(${opts[@]+"${opts[@]}"})
  JAVA_CMD+=("-Dkodiak.daemon=stub:$STUB_BASE" -cp "$snapshot:$STUB_DIR/target/lib/*" io.kodiak.stub.embedded.StubMain)
  export STUB_PORT STUB_DELAY_MS STUB_MODE STUB_HOST
  [ -n "${STUB_THREADS:-}" ] && export STUB_THREADS
  return 0
}

# The settings a running stub was started with, read from its own environment.
running_setting() {
  local pid=$1 name=$2 fallback=$3 value
  value=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | sed -n "s/^$name=//p" | head -n 1)
  echo "${value:-$fallback}"
}

describe() {
  local pid=$1 host port mode delay
  host=$(running_setting "$pid" STUB_HOST 127.0.0.1)
  port=$(running_setting "$pid" STUB_PORT 8080)
  mode=$(running_setting "$pid" STUB_MODE async)
  delay=$(running_setting "$pid" STUB_DELAY_MS 500)
  [[ $host == *:* ]] && host="[$host]"
  echo "pid $pid, http://$host:$port/ProxiedServiceStub/ServiceStubServlet, mode $mode, delay $delay ms"
}

cmd_start() {
  validate_settings
  resolve_base
  local pid
  if pid=$(daemon_pid "$PID_FILE" "$MARKER"); then
    echo "stub is already running ($(describe "$pid")); refusing to start a second one" >&2
    exit 1
  fi
  find_java
  ensure_built
  java_command
  daemon_start stub "$PID_FILE" "$LOG_FILE" "$MARKER" "$STUB_HOST" "$STUB_PORT" 60 -- "${JAVA_CMD[@]}" || exit 1
  pid=$(cat "$PID_FILE")
  echo "stub started: $(describe "$pid"); log $LOG_FILE"
}

cmd_stop() {
  resolve_base
  local seconds=30 pid
  # The stub drains waiting exchanges for up to one delay + 5 s before exiting.
  if pid=$(daemon_pid "$PID_FILE" "$MARKER"); then
    seconds=$(($(running_setting "$pid" STUB_DELAY_MS 500) / 1000 + 30))
  fi
  daemon_stop stub "$PID_FILE" "$MARKER" "$seconds"
}

cmd_status() {
  resolve_base
  local pid
  if pid=$(daemon_pid "$PID_FILE" "$MARKER"); then
    echo "stub is running: $(describe "$pid"), up $(daemon_uptime "$pid") s; base $STUB_BASE"
    exit 0
  fi
  echo "stub is not running (base $STUB_BASE)"
  exit 3
}

cmd_run() {
  validate_settings
  resolve_base
  local pid
  if pid=$(daemon_pid "$PID_FILE" "$MARKER"); then
    echo "stub is already running ($(describe "$pid")); refusing to run a second one" >&2
    exit 1
  fi
  find_java
  ensure_built
  java_command
  # exec keeps this pid, so status and stop work on a foreground stub too.
  echo $$ >"$PID_FILE"
  exec "${JAVA_CMD[@]}"
}

case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  run) cmd_run ;;
  -h | --help | help) usage; exit 0 ;;
  *) usage; exit 2 ;;
esac
