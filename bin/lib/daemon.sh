# Shared daemon plumbing for the bench scripts (bench/mule/mule.sh, bench/failover/run.sh, ...); bin/proxy.sh
# and bin/stub.sh use daemon_script_dir and daemon_java only (their Java command lines do the rest).
# Sourced, not executed. Every process is identified by its pid file AND a marker string that
# must appear on its command line, so a stale pid file that now points at some other process
# is never mistaken for ours and never signalled.

# Resolve the directory of a script even when it is called through a symlink.
daemon_script_dir() {
  local src=$1
  while [ -L "$src" ]; do
    local dir
    dir=$(cd -P "$(dirname "$src")" && pwd)
    src=$(readlink "$src")
    [[ $src != /* ]] && src=$dir/$src
  done
  cd -P "$(dirname "$src")" && pwd
}

# Prints the pid and returns 0 when PIDFILE names a live process whose command line contains MARKER.
# A marker ending in a space (-Dkodiak.daemon=proxy:BASE ) must be one whole argument: as a substring,
# the marker of a base "/x/bq" would also match an instance whose base is "/x/bq y".
daemon_pid() {
  local pidfile=$1 marker=$2 pid arg found=false
  [ -f "$pidfile" ] || return 1
  pid=$(tr -dc '0-9' <"$pidfile")
  [ -n "$pid" ] || return 1
  [ -r "/proc/$pid/cmdline" ] || return 1
  if [[ $marker == *' ' ]]; then
    while IFS= read -r -d '' arg; do
      [ "$arg" = "${marker% }" ] && found=true && break
    done <"/proc/$pid/cmdline"
    [ "$found" = true ] || return 1
  else
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$marker" || return 1
  fi
  echo "$pid"
}

# True when something accepts TCP connections on HOST:PORT.
daemon_port_open() {
  local host=$1 port=$2
  timeout 1 bash -c "exec 3<>/dev/tcp/$host/$port" 2>/dev/null
}

# The first port from $1 on that nothing listens on, on 127.0.0.1 (bench scripts picking ports).
daemon_free_port() {
  local port=$1
  while daemon_port_open 127.0.0.1 "$port"; do port=$((port + 1)); done
  echo "$port"
}

# Waits until HOST:PORT accepts while PID stays alive.
# Returns 0 when open, 1 when the process died first, 2 after SECONDS.
daemon_wait_port() {
  local host=$1 port=$2 pid=$3 seconds=$4
  local deadline=$((SECONDS + seconds))
  while [ $SECONDS -lt "$deadline" ]; do
    kill -0 "$pid" 2>/dev/null || return 1
    daemon_port_open "$host" "$port" && return 0
    sleep 0.2
  done
  return 2
}

# daemon_start NAME PIDFILE LOGFILE MARKER HOST PORT SECONDS -- COMMAND...
# Starts COMMAND detached, records its pid, and returns once HOST:PORT accepts connections.
# On failure prints the reason and the log's last lines and returns non-zero.
daemon_start() {
  local name=$1 pidfile=$2 logfile=$3 marker=$4 host=$5 port=$6 seconds=$7
  shift 7
  [ "$1" = "--" ] && shift
  local pid
  if pid=$(daemon_pid "$pidfile" "$marker"); then
    echo "$name is already running (pid $pid, pid file $pidfile); refusing to start a second one" >&2
    return 1
  fi
  rm -f "$pidfile"
  if daemon_port_open "$host" "$port"; then
    echo "$name: cannot start, $host:$port is already in use by another process" >&2
    return 1
  fi
  mkdir -p "$(dirname "$pidfile")" "$(dirname "$logfile")"
  echo "--- $(date '+%Y-%m-%d %H:%M:%S') starting $name: $*" >>"$logfile"
  # setsid: no controlling terminal, so no hang-up reaches the daemon from one. Not nohup: it would
  # ignore SIGHUP for good, and the JVM then cannot take it over (Kodiak reloads on it).
  # A caller may itself run under nohup (or another parent that ignores SIGHUP), and an ignored
  # signal stays ignored across exec: env --default-signal (coreutils 8.31+) restores it first.
  local restore=()
  if env --default-signal=HUP true 2>/dev/null; then
    restore=(env --default-signal=HUP)
  fi
  setsid ${restore[@]+"${restore[@]}"} "$@" >>"$logfile" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$pidfile"
  daemon_wait_port "$host" "$port" "$pid" "$seconds"
  case $? in
    0) return 0 ;;
    1) echo "$name: the process exited during start-up; last lines of $logfile:" >&2 ;;
    2) echo "$name: $host:$port did not accept connections within ${seconds}s; stopping pid $pid; last lines of $logfile:" >&2
       kill -TERM "$pid" 2>/dev/null ;;
  esac
  tail -n 25 "$logfile" >&2
  rm -f "$pidfile"
  return 1
}

# daemon_stop NAME PIDFILE MARKER SECONDS
# Sends SIGTERM, waits up to SECONDS for the process to exit, then SIGKILL as a last resort.
daemon_stop() {
  local name=$1 pidfile=$2 marker=$3 seconds=$4 pid
  if ! pid=$(daemon_pid "$pidfile" "$marker"); then
    rm -f "$pidfile"
    echo "$name is not running"
    return 0
  fi
  echo "stopping $name (pid $pid)…"
  kill -TERM "$pid" 2>/dev/null
  local deadline=$((SECONDS + seconds))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt "$deadline" ]; do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "$name did not exit within ${seconds}s; killing pid $pid" >&2
    kill -KILL "$pid" 2>/dev/null
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
  rm -f "$pidfile"
  echo "$name stopped"
}

# Seconds since PID started (for status output).
daemon_uptime() {
  local pid=$1
  ps -o etimes= -p "$pid" 2>/dev/null | tr -d ' '
}

# daemon_jar_stale MODULE JAR: true when JAR or the lib/ beside it is missing, or when anything in
# MODULE's src/main or its pom.xml is newer than JAR (a checkout that moved on must not run
# yesterday's classes).
daemon_jar_stale() {
  local module=$1 jar=$2
  [ ! -f "$jar" ] || [ ! -d "$(dirname "$jar")/lib" ] \
    || [ -n "$(find "$module/src/main" "$module/pom.xml" -newer "$jar" -print -quit 2>/dev/null)" ]
}

# Picks a java for the given major version: JAVA_HOME if it matches, else /usr/lib/jvm, else PATH.
daemon_java() {
  local want=${1:-17} j
  for j in "${JAVA_HOME:+$JAVA_HOME/bin/java}" /usr/lib/jvm/java-"$want"-openjdk-*/bin/java /usr/lib/jvm/*-"$want"-*/bin/java "$(command -v java)"; do
    [ -n "$j" ] && [ -x "$j" ] || continue
    if "$j" -version 2>&1 | head -1 | grep -qE "version \"$want([.\"]|$)"; then echo "$j"; return 0; fi
  done
  return 1
}
