#!/usr/bin/env bash
# haproxy.sh start|stop|status|run — HAProxy as a benchmark peer: a keep-alive reverse proxy on
# 127.0.0.1:9601 to the stub on 127.0.0.1:8080 (config: haproxy.cfg next to this script).
# Environment:
#   HAPROXY_BASE       pid file, log and the effective config (default <repo>/target/haproxy), so
#                      nothing touches Debian's haproxy service or /etc/haproxy
#   HAPROXY_PORT       listener port (default 9601)
#   HAPROXY_STUB_PORT  the stub's port on 127.0.0.1 (default 8080)
# HAProxy is installed from Debian on first use when missing.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../bin/lib/daemon.sh
. "$root/bin/lib/daemon.sh"
# shellcheck source=../../bin/lib/packages.sh
. "$root/bin/lib/packages.sh"

name=haproxy
host=127.0.0.1
port=${HAPROXY_PORT:-9601}
stub_port=${HAPROXY_STUB_PORT:-8080}
template=$here/haproxy.cfg
base=$(realpath -m "${HAPROXY_BASE:-$root/target/haproxy}")
conf=$base/haproxy.cfg   # the template with this instance's ports
pidfile=$base/haproxy.pid
logfile=$base/logs/console.log
# -C (the working directory) names this instance on the command line.
marker="-C $base"

haproxy_bin() {
  command -v haproxy 2>/dev/null || { [ -x /usr/sbin/haproxy ] && echo /usr/sbin/haproxy; }
}

# Writes the effective config and sets cmd to the command line of this instance.
# -db: stay in the foreground, no master process, so the pid we record is the proxy itself.
prepare() {
  ensure_packages "$name" haproxy
  mkdir -p "$base/logs"
  sed -e "s/bind 127\.0\.0\.1:9601 /bind $host:$port /" \
      -e "s/server stub 127\.0\.0\.1:8080\$/server stub 127.0.0.1:$stub_port/" "$template" >"$conf"
  grep -q "bind $host:$port " "$conf" && grep -q "server stub 127.0.0.1:$stub_port\$" "$conf" \
    || { echo "$name: could not set the ports in $conf (did $template change?)" >&2; return 1; }
  cmd=("$(haproxy_bin)" -db -C "$base" -f "$conf")
}

start() {
  prepare
  if ! "${cmd[@]}" -c -q >>"$logfile" 2>&1; then
    echo "$name: configuration check failed; last lines of $logfile:" >&2
    tail -n 15 "$logfile" >&2
    return 1
  fi
  daemon_start "$name" "$pidfile" "$logfile" "$marker" "$host" "$port" 30 -- "${cmd[@]}"
  echo "$name started (pid $(cat "$pidfile")) on $host:$port → 127.0.0.1:$stub_port, base $base"
}

status() {
  local pid
  if pid=$(daemon_pid "$pidfile" "$marker"); then
    echo "$name is running (pid $pid, up $(daemon_uptime "$pid") s) on $host:$port, base $base"
    return 0
  fi
  echo "$name is not running (base $base)"
  return 3
}

case ${1:-} in
  start) start ;;
  stop) daemon_stop "$name" "$pidfile" "$marker" 30 ;;
  status) status ;;
  run) prepare && exec "${cmd[@]}" ;;
  *) echo "usage: $(basename "$0") start|stop|status|run   (HAPROXY_BASE=$base)" >&2; exit 2 ;;
esac
