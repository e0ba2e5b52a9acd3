#!/usr/bin/env bash
# Kodiak as a daemon: bin/proxy.sh start|stop|restart|reload|status|check|run|version [-c FILE]
# Environment:
#   PROXY_CONF  the configuration (default conf/proxy.conf); -c FILE takes precedence
#   PROXY_BASE  the instance directory (default: this installation); holds proxy.pid and logs/
#   JAVA_OPTS   JVM options for the daemon, placed after the defaults so they win; -Dproxy.<key>=<value>
#               overrides any key
# Exit codes: 0 done, 1 failed, 2 bad usage or configuration (a reload refused), 3 not running.
#
# This script finds Java, Kodiak's classes (building a checkout on first use) and the base
# directory, and hands the command to io.kodiak.daemon.cli.Cli (usage, the commands, their output).
# `run` is the exception: the daemon must become this very process, so the script execs the
# command line Cli prints for it.
set -euo pipefail

# shellcheck source=lib/daemon.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib/daemon.sh"
HOME_DIR=$(cd "$(daemon_script_dir "${BASH_SOURCE[0]}")/.." && pwd)
JAVA=$(daemon_java 17) || { echo "kodiak: no Java 17 found (JAVA_HOME, /usr/lib/jvm or PATH)" >&2; exit 1; }

# A source checkout (pom.xml beside bin/) builds target/kodiak.jar + target/lib/ when missing or
# older than src/main (a checkout that moved on must not run yesterday's classes), one
# build at a time; tests are not compiled (a half-edited test must not keep the daemon from
# starting). An unpacked release archive runs lib/ as it is and never builds.
if [ -f "$HOME_DIR/pom.xml" ]; then
  if daemon_jar_stale "$HOME_DIR" "$HOME_DIR/target/kodiak.jar"; then
    command -v mvn >/dev/null || { echo "kodiak: Kodiak is not built and Maven (mvn) is not installed" >&2; exit 1; }
    mkdir -p "$HOME_DIR/target"
    exec 9>"$HOME_DIR/target/.build.lock"
    flock 9
    if daemon_jar_stale "$HOME_DIR" "$HOME_DIR/target/kodiak.jar"; then
      echo "building Kodiak… (output in $HOME_DIR/target/build.log)"
      JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$JAVA")")") mvn -B -q -f "$HOME_DIR/pom.xml" \
        -Dmaven.test.skip=true -DskipTlsSuite=true package >"$HOME_DIR/target/build.log" 2>&1 \
        || { echo "kodiak: the build failed; last lines of target/build.log:" >&2; tail -n 25 "$HOME_DIR/target/build.log" >&2; exit 1; }
    fi
    exec 9>&-
  fi
  CLASSPATH_ARG="$HOME_DIR/target/kodiak.jar:$HOME_DIR/target/lib/*"
else
  CLASSPATH_ARG="$HOME_DIR/lib/*"
fi

# The base directory is the working directory of the command line's JVM and the daemon's, where
# relative paths in the configuration resolve. An installation is not written to for a version.
CALLER_DIR=$PWD
case ${1:-} in
  start | stop | restart | reload | status | check | run)
    mkdir -p "${PROXY_BASE:-$HOME_DIR}"
    cd "${PROXY_BASE:-$HOME_DIR}"
    export PROXY_BASE=$PWD ;;
esac
CLI=("$JAVA" -Xshare:auto -XX:TieredStopAtLevel=1 -XX:+UseSerialGC "-Dkodiak.home=$HOME_DIR"
  "-Dkodiak.caller-dir=$CALLER_DIR" -cp "$CLASSPATH_ARG" io.kodiak.daemon.cli.Cli "$@")

if [ "${1:-}" = run ]; then
  # exec keeps this pid, so the pid file, status and stop name the JVM itself.
  DAEMON=$("${CLI[@]}") || exit $?
  mapfile -t DAEMON_COMMAND <<<"$DAEMON"
  echo $$ >"$PROXY_BASE/proxy.pid"
  exec "${DAEMON_COMMAND[@]}"
fi
exec "${CLI[@]}"
