#!/usr/bin/env bash
# nginx.sh start|stop|status|run — nginx as a benchmark peer: a keep-alive reverse proxy on 127.0.0.1:9501
# to the stub on 127.0.0.1:8080 (config: nginx.conf next to this script).
# NGINX_BASE (default <repo>/target/nginx) holds the pid file, logs and temp files, so it never touches
# Debian's nginx service. nginx is installed from Debian on first use when missing.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../bin/lib/daemon.sh
. "$root/bin/lib/daemon.sh"

name=nginx
host=127.0.0.1
port=9501
conf=$here/nginx.conf
base=${NGINX_BASE:-$root/target/nginx}
base=$(realpath -m "$base")
pidfile=$base/nginx.daemon.pid
logfile=$base/logs/console.log
# nginx rewrites its process title but keeps its arguments in it; the prefix names this instance.
marker="-p $base/"

nginx_bin() {
  command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; }
}

ensure_installed() {
  nginx_bin >/dev/null && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "$name: nginx is not installed and installing it needs root: apt-get install nginx" >&2
    return 1
  fi
  echo "$name: installing nginx from Debian…"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nginx >/dev/null
  nginx_bin >/dev/null
}

# Sets cmd to the nginx command line for this instance.
command_line() {
  cmd=("$(nginx_bin)" -p "$base/" -c "$conf" -e "$base/logs/error.log")
}

start() {
  ensure_installed
  mkdir -p "$base/logs" "$base/tmp"
  command_line
  # A config error is clearer from nginx -t than from a process that dies during start-up.
  if ! "${cmd[@]}" -t -q >>"$logfile" 2>&1; then
    echo "$name: configuration test failed; last lines of $logfile:" >&2
    tail -n 15 "$logfile" >&2
    return 1
  fi
  daemon_start "$name" "$pidfile" "$logfile" "$marker" "$host" "$port" 30 -- "${cmd[@]}"
  echo "$name started (pid $(cat "$pidfile")) on $host:$port, base $base"
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
  run)
    ensure_installed
    mkdir -p "$base/logs" "$base/tmp"
    command_line
    exec "${cmd[@]}"
    ;;
  *) echo "usage: $(basename "$0") start|stop|status|run   (NGINX_BASE=$base)" >&2; exit 2 ;;
esac
