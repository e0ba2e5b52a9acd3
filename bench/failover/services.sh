# bench/failover's proxies: each one's configuration before the three servers (SERVER_PORTS), with the
# failure handling the run compares, started and stopped as services of bench/lib/targets.sh (service
# "proxy", in the directory of the round and target). Sourced by run.sh.

# proxy_start TARGET: its configuration written into the service's directory, then started.
proxy_start() {
  local dir=$TARGETS_DIR/proxy
  mkdir -p "$dir/logs"
  case $1 in
    kodiak) kodiak_conf >"$dir/kodiak.conf"
            target_start proxy start_kodiak "${PORT[kodiak]}" "$dir/kodiak.conf" "${JAVA_OPTS:-}" ;;
    nginx) nginx_conf "$dir" >"$dir/nginx.conf"
           target_start proxy start_nginx "${PORT[nginx]}" "$dir/nginx.conf" ;;
    haproxy) haproxy_conf >"$dir/haproxy.cfg"
             target_start proxy start_haproxy "${PORT[haproxy]}" "$dir/haproxy.cfg" ;;
  esac
}

# Passive health (one failure takes a server out for 10 s), active checks, retries of what is safe to retry.
kodiak_conf() {
  local servers
  servers=$(printf '"http://127.0.0.1:%s", ' "${SERVER_PORTS[@]}")
  cat <<CONF
proxy {
  listener { host = "127.0.0.1", port = ${PORT[kodiak]}, idle-timeout = 60s }
  upstreams.failover {
    servers = [ ${servers%, } ]
    passive { max-fails = 1, fail-timeout = 10s }
    health-check { path = "/health", interval = 1s, timeout = 500ms, rise = 2, fall = 2 }
    retry { attempts = 3, on = ["connect-failure", "reset", "502", "503", "504"], budget = 20% }
  }
  routes = [ { prefix = "/", upstream = "http://failover/" } ]
  upstream { response-timeout = 10s }
  admin { enabled = true, port = ${PORT[admin]} }
}
CONF
}

# nginx OSS has no active checks: passive ones, and the next server on errors.
nginx_conf() {
  local dir=$1 port
  cat <<CONF
$(nginx_head "$dir")
  upstream failover {
$(for port in "${SERVER_PORTS[@]}"; do echo "    server 127.0.0.1:$port max_fails=1 fail_timeout=10s;"; done)
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${PORT[nginx]} backlog=1024;
    location / {
      proxy_pass http://failover;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_next_upstream error timeout http_502 http_503 http_504;
      proxy_next_upstream_tries 3;
      proxy_read_timeout 10s;
    }
  }
}
CONF
}

# Active checks, redispatch and retries; its log to stdout (the service's console.log), where the run
# finds when it took the server out.
haproxy_conf() {
  cat <<CONF
global
  maxconn 8000
  nbthread 2
  log stdout format rfc5424 local0 info
defaults
  mode http
  log global
  option dontlog-normal
  timeout connect 5s
  timeout client 60s
  timeout server 10s
  option http-keep-alive
  option redispatch
  retries 2
  retry-on conn-failure empty-response 502 503 504
frontend fe
  bind 127.0.0.1:${PORT[haproxy]}
  default_backend be
backend be
  option httpchk GET /health
  default-server check inter 1s fall 2 rise 2
  server s1 127.0.0.1:${SERVER_PORTS[0]}
  server s2 127.0.0.1:${SERVER_PORTS[1]}
  server s3 127.0.0.1:${SERVER_PORTS[2]}
CONF
}
