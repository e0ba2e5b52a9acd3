#!/usr/bin/env bash
# The proxied service stub as a daemon: bin/stub.sh start|stop|status|run
# Environment: STUB_PORT (8080), STUB_DELAY_MS (500), STUB_MODE (async|blocking), STUB_HOST (127.0.0.1),
# STUB_THREADS (8 async / 200 blocking), STUB_BASE (the repository root; holds stub.pid and logs/stub.log),
# JAVA_OPTS (extra JVM options; the collector is ZGC unless they name another).
# Exit codes: 0 done, 1 failed (not started, already running), 2 bad usage or setting, 3 not running.
#
# This script finds Java, the stub's jar (building it on first use) and the base directory, and
# hands the command to io.kodiak.stub.cli.StubCli. `run` execs the command line StubCli prints, so
# the stub becomes this very process.
set -euo pipefail

# shellcheck source=lib/daemon.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib/daemon.sh"
REPO_DIR=$(cd "$(daemon_script_dir "${BASH_SOURCE[0]}")/.." && pwd)
STUB_DIR=$REPO_DIR/stub
JAVA=$(daemon_java 17) || { echo "stub: no Java 17 found (JAVA_HOME, /usr/lib/jvm or PATH)" >&2; exit 2; }
export STUB_BASE=${STUB_BASE:-$REPO_DIR}
mkdir -p "$STUB_BASE/logs"

# Builds the runnable jar when it is missing or older than the stub's sources, one build at a time.
if daemon_jar_stale "$STUB_DIR" "$STUB_DIR/target/kodiak-stub.jar"; then
  command -v mvn >/dev/null || { echo "stub: the stub is not built and Maven (mvn) is not installed" >&2; exit 2; }
  mkdir -p "$STUB_DIR/target"
  exec 9>"$STUB_DIR/target/.build.lock"
  flock 9
  if daemon_jar_stale "$STUB_DIR" "$STUB_DIR/target/kodiak-stub.jar"; then
    echo "building stub… (output in $STUB_BASE/logs/stub-build.log)"
    JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$JAVA")")") mvn -B -f "$STUB_DIR/pom.xml" -DskipTests package \
      >"$STUB_BASE/logs/stub-build.log" 2>&1 \
      || { echo "stub: the build failed; last lines of $STUB_BASE/logs/stub-build.log:" >&2; tail -n 25 "$STUB_BASE/logs/stub-build.log" >&2; exit 1; }
  fi
  exec 9>&-
fi

CLI=("$JAVA" -Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC "-Dstub.dir=$STUB_DIR"
  -cp "$STUB_DIR/target/kodiak-stub.jar:$STUB_DIR/target/lib/*" io.kodiak.stub.cli.StubCli "$@")
if [ "${1:-}" = run ]; then
  STUB_COMMAND=$("${CLI[@]}") || exit $?
  mapfile -t STUB_COMMAND <<<"$STUB_COMMAND"
  # exec keeps this pid, so status and stop work on a foreground stub too.
  echo $$ >"$STUB_BASE/stub.pid"
  exec "${STUB_COMMAND[@]}"
fi
exec "${CLI[@]}"
