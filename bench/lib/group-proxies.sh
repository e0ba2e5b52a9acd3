# Kodiak, nginx and HAProxy, each in front of one group of three HTTP/1.1 servers, configured alike:
# passive health, active checks where the proxy has them, retries of what is safe to retry, and
# the same timeouts. Sourced by bench/faults/run.sh (bench/failover/run.sh keeps its own copy with
# its own timings). The caller sources bin/lib/daemon.sh and sets:
#
#   GP_SERVERS        "127.0.0.1:P1 127.0.0.1:P2 127.0.0.1:P3"
#   GP_RESPONSE_S     upstream response timeout, whole seconds (Kodiak response-timeout, nginx
#                     proxy_read_timeout, HAProxy timeout server)
#   GP_IDLE_S         client-side idle/send timeout, whole seconds, keep-alive idle included (Kodiak
#                     listener.idle-timeout; nginx send_timeout, client_body_timeout, client_header_timeout,
#                     keepalive_timeout; HAProxy timeout client and http-keep-alive)
#   GP_POOL_IDLE_S    how long an idle pooled upstream connection is kept, whole seconds (Kodiak
#                     upstream.idle-timeout, nginx keepalive_timeout, HAProxy pool-purge-delay)
#   GP_ACCESS_LOG     where the access log goes (a file; Kodiak's logs/access.log is linked to it)
#   GP_ADMIN_PORT     Kodiak's admin port
#
#   gp_start TARGET PORT DIR    start it on 127.0.0.1:PORT with its files in DIR; returns once it accepts
#   gp_stop TARGET DIR          stop it (drains; kill -9 after 20 s)
#   gp_pids TARGET DIR          the pids that serve (Kodiak's JVM; nginx's master and workers; HAProxy)

gp_start() {
  local t=$1 port=$2 dir=$3 s list="" n=0
  mkdir -p "$dir/logs"
  case $t in
    kodiak)
      for s in $GP_SERVERS; do list+="\"http://$s\", "; done
      cat >"$dir/proxy.conf" <<CONF
proxy {
  listener { host = "127.0.0.1", port = $port, idle-timeout = ${GP_IDLE_S}s }
  upstreams.faults {
    servers = [ ${list%, } ]
    passive { max-fails = 1, fail-timeout = 5s }
    health-check { path = "/health", interval = 1s, timeout = 500ms, rise = 2, fall = 2 }
    retry { attempts = 3, on = ["connect-failure", "reset", "timeout", "invalid-response", "502", "503", "504"], budget = 20% }
  }
  routes = [ { prefix = "/", upstream = "http://faults/" } ]
  upstream { connect-timeout = 2s, response-timeout = ${GP_RESPONSE_S}s, idle-timeout = ${GP_POOL_IDLE_S}s }
  admin { enabled = true, port = $GP_ADMIN_PORT }
}
CONF
      # The access log on the file the caller chose (a small tmpfs): logback follows the link.
      ln -sfn "$GP_ACCESS_LOG" "$dir/logs/access.log"
      PROXY_CONF=$dir/proxy.conf PROXY_BASE=$dir "$_gp_root/bin/proxy.sh" start >>"$dir/console.log" 2>&1 \
        || { tail -n 20 "$dir/console.log" >&2; return 1; }
      ;;
    nginx)
      mkdir -p "$dir/tmp"
      {
        # Workers as the master's user when that is root: prlimit on another user's process needs a
        # capability a container may not grant (the faults bench lowers the workers' open-file limit).
        [ "$(id -u)" = 0 ] && echo "user root;"
        echo "worker_processes 2; pid $dir/nginx.pid; error_log $dir/logs/error.log warn;"
        echo "events { worker_connections 4096; }"
        echo "http {"
        echo "  access_log $GP_ACCESS_LOG;"
        echo "  client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp; uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;"
        echo "  send_timeout ${GP_IDLE_S}s; client_body_timeout ${GP_IDLE_S}s; client_header_timeout ${GP_IDLE_S}s; keepalive_timeout ${GP_IDLE_S}s; client_max_body_size 10m;"
        echo "  upstream faults {"
        for s in $GP_SERVERS; do echo "    server $s max_fails=1 fail_timeout=5s;"; done
        echo "    keepalive 64; keepalive_timeout ${GP_POOL_IDLE_S}s;"
        echo "  }"
        echo "  server {"
        echo "    listen 127.0.0.1:$port backlog=1024;"
        echo "    location / {"
        echo "      proxy_pass http://faults; proxy_http_version 1.1; proxy_set_header Connection \"\";"
        echo "      proxy_next_upstream error timeout invalid_header http_502 http_503 http_504; proxy_next_upstream_tries 3;"
        echo "      proxy_connect_timeout 2s; proxy_read_timeout ${GP_RESPONSE_S}s;"
        echo "    }"
        echo "  }"
        echo "}"
      } >"$dir/nginx.conf"
      daemon_start nginx "$dir/daemon.pid" "$dir/console.log" "-p $dir/" 127.0.0.1 "$port" 30 -- \
        "$(command -v nginx || echo /usr/sbin/nginx)" -p "$dir/" -c "$dir/nginx.conf" -e "$dir/logs/error.log" -g "daemon off;"
      ;;
    haproxy)
      {
        printf 'global\n  maxconn 8000\n  nbthread 2\n  log stdout format raw local0 info\n'
        printf 'defaults\n  mode http\n  log global\n  option httplog\n  timeout connect 2s\n'
        printf '  timeout client %ss\n  timeout server %ss\n  timeout http-keep-alive %ss\n' "$GP_IDLE_S" "$GP_RESPONSE_S" "$GP_IDLE_S"
        printf '  option http-keep-alive\n  option redispatch\n  retries 2\n'
        printf '  retry-on conn-failure empty-response junk-response response-timeout 502 503 504\n'
        printf 'frontend fe\n  bind 127.0.0.1:%s\n  default_backend be\n' "$port"
        printf 'backend be\n  option httpchk GET /health\n'
        # observe layer7 + error-limit 1: HAProxy's passive health, as near max_fails=1 as it has.
        printf '  default-server check inter 1s fall 2 rise 2 observe layer7 error-limit 1 on-error mark-down pool-purge-delay %ss\n' "$GP_POOL_IDLE_S"
        for s in $GP_SERVERS; do n=$((n + 1)); printf '  server s%s %s\n' "$n" "$s"; done
      } >"$dir/haproxy.cfg"
      # Its log is its standard output: that file is the access log (on the caller's tmpfs).
      daemon_start haproxy "$dir/daemon.pid" "$GP_ACCESS_LOG" "-f $dir/haproxy.cfg" 127.0.0.1 "$port" 30 -- \
        "$(command -v haproxy || echo /usr/sbin/haproxy)" -db -f "$dir/haproxy.cfg"
      ;;
  esac
}

gp_stop() {
  case $1 in
    kodiak) PROXY_CONF=$2/proxy.conf PROXY_BASE=$2 "$_gp_root/bin/proxy.sh" stop >>"$2/console.log" 2>&1 || true ;;
    nginx) daemon_stop nginx "$2/daemon.pid" "-p $2/" 20 >/dev/null || true ;;
    haproxy) daemon_stop haproxy "$2/daemon.pid" "-f $2/haproxy.cfg" 20 >/dev/null || true ;;
  esac
}

gp_pids() {
  local pid
  case $1 in
    kodiak) daemon_pid "$2/proxy.pid" "-Dkodiak.daemon=proxy:$2 " ;;
    nginx) pid=$(daemon_pid "$2/daemon.pid" "-p $2/") && { echo "$pid"; pgrep -P "$pid"; } ;;
    haproxy) daemon_pid "$2/daemon.pid" "-f $2/haproxy.cfg" ;;
  esac
}

_gp_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
