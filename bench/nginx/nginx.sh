#!/usr/bin/env bash
# nginx.sh start|stop|status|run — nginx as a benchmark peer: a keep-alive reverse proxy on 127.0.0.1:9501
# to the stub on 127.0.0.1:8080 (config: nginx.conf next to this script).
# Environment:
#   NGINX_BASE       pid file, logs, temp files and the effective config (default <repo>/target/nginx),
#                    so nothing touches Debian's nginx service or /etc/nginx
#   NGINX_PORT       listener port (default 9501)
#   NGINX_STUB_PORT  the stub's port on 127.0.0.1 (default 8080)
# nginx is installed from Debian on first use when missing.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../bin/lib/daemon.sh
. "$root/bin/lib/daemon.sh"
# shellcheck source=../../bin/lib/packages.sh
. "$root/bin/lib/packages.sh"

name=nginx
host=127.0.0.1
port=${NGINX_PORT:-9501}
stub_port=${NGINX_STUB_PORT:-8080}
template=$here/nginx.conf
base=$(realpath -m "${NGINX_BASE:-$root/target/nginx}")
conf=$base/nginx.conf   # the template with this instance's ports
pidfile=$base/nginx.daemon.pid
logfile=$base/logs/console.log
# nginx rewrites its process title but keeps its arguments in it; the prefix names this instance.
marker="-p $base/"

nginx_bin() {
  command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; }
}

# Writes the effective config and sets cmd to the command line of this instance.
prepare() {
  ensure_packages "$name" nginx
  mkdir -p "$base/logs" "$base/tmp"
  sed -e "s/listen 127\.0\.0\.1:9501 /listen $host:$port /" \
      -e "s/server 127\.0\.0\.1:8080;/server 127.0.0.1:$stub_port;/" "$template" >"$conf"
  grep -q "listen $host:$port " "$conf" && grep -q "server 127.0.0.1:$stub_port;" "$conf" \
    || { echo "$name: could not set the ports in $conf (did $template change?)" >&2; return 1; }
  cmd=("$(nginx_bin)" -p "$base/" -c "$conf" -e "$base/logs/error.log")
}

start() {
  prepare
  # A config error is clearer from nginx -t than from a process that dies during start-up.
  if ! "${cmd[@]}" -t -q >>"$logfile" 2>&1; then
    echo "$name: configuration test failed; last lines of $logfile:" >&2
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
  *) echo "usage: $(basename "$0") start|stop|status|run   (NGINX_BASE=$base)" >&2; exit 2 ;;
esac
