# bench/reload's proxies: two configurations of each (A: servers 1 and 2, read timeout 10 s; B: servers 2
# and 3, 9 s), each proxy started on A as the service "proxy" of bench/lib/targets.sh and reloaded the way
# its operators do. Sourced by run.sh.

# proxy_start TARGET: both configurations written into the service's directory, then the proxy on A.
proxy_start() {
  local t=$1 dir=$TARGETS_DIR/proxy v
  mkdir -p "$dir/logs"
  for v in a b; do "${t}_conf" "$dir" "$v" >"$dir/$(conf_name "$t" "$v")"; done
  case $t in
    kodiak) cp "$dir/kodiak-a.conf" "$dir/kodiak.conf"
            target_start proxy start_kodiak "${PORT[kodiak]}" "$dir/kodiak.conf" "${JAVA_OPTS:-}" ;;
    nginx) cp "$dir/nginx-a.conf" "$dir/nginx.conf"
           target_start proxy start_nginx "${PORT[nginx]}" "$dir/nginx.conf" ;;
    # Master-worker mode (-W): SIGUSR2 makes the master start a new worker, the old one finishing (-sf).
    haproxy) cp "$dir/haproxy-a.cfg" "$dir/haproxy.cfg"
             target_start proxy start_command "${PORT[haproxy]}" "-f $dir/haproxy.cfg" \
               "$(command -v haproxy)" -W -db -f "$dir/haproxy.cfg" ;;
  esac
}

conf_name() { if [ "$1" = haproxy ]; then echo "haproxy-$2.cfg"; else echo "$1-$2.conf"; fi; }

# proxy_reload TARGET VARIANT: the proxy to configuration a or b; the command's own exit status.
proxy_reload() {
  local t=$1 v=$2 dir=$TARGETS_DIR/proxy pid
  case $t in
    # As nginx's operators do: the new file over the one in service, then a reload of it (naming
    # another file would take the admin token).
    kodiak) cp "$dir/kodiak-$v.conf" "$dir/kodiak.conf" && PROXY_BASE=$dir "$root/bin/proxy.sh" reload >>"$dir/reloads.log" 2>&1 ;;
    nginx) cp "$dir/nginx-$v.conf" "$dir/nginx.conf" && nginx -p "$dir/" -c "$dir/nginx.conf" -s reload >>"$dir/reloads.log" 2>&1 ;;
    haproxy) cp "$dir/haproxy-$v.cfg" "$dir/haproxy.cfg" && pid=$(target_pid proxy) && kill -USR2 "$pid" ;;
  esac
}

# The servers and the read timeout of configuration VARIANT: "FIRST SECOND TIMEOUT_S".
variant_upstream() {
  if [ "$1" = a ]; then echo "${SERVER_PORTS[0]} ${SERVER_PORTS[1]} 10"; else echo "${SERVER_PORTS[1]} ${SERVER_PORTS[2]} 9"; fi
}

kodiak_conf() {   # DIR VARIANT
  local first second timeout
  read -r first second timeout <<<"$(variant_upstream "$2")"
  cat <<CONF
proxy {
  listener { host = "127.0.0.1", port = ${PORT[kodiak]}, idle-timeout = 60s }
  upstreams.app { servers = [ "http://127.0.0.1:$first", "http://127.0.0.1:$second" ] }
  routes = [ { prefix = "/", upstream = "http://app/" } ]
  upstream { response-timeout = ${timeout}s }
  admin { enabled = true, port = ${PORT[admin]} }
}
CONF
}

nginx_conf() {   # DIR VARIANT
  local dir=$1 first second timeout
  read -r first second timeout <<<"$(variant_upstream "$2")"
  cat <<CONF
$(nginx_head "$dir")
  upstream app {
    server 127.0.0.1:$first;
    server 127.0.0.1:$second;
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${PORT[nginx]} backlog=1024;
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_read_timeout ${timeout}s;
    }
  }
}
CONF
}

haproxy_conf() {   # DIR VARIANT
  local first second timeout
  read -r first second timeout <<<"$(variant_upstream "$2")"
  cat <<CONF
global
  maxconn 8000
  nbthread 2
defaults
  mode http
  timeout connect 5s
  timeout client 60s
  timeout server ${timeout}s
  option http-keep-alive
frontend fe
  bind 127.0.0.1:${PORT[haproxy]}
  default_backend be
backend be
  server s1 127.0.0.1:$first
  server s2 127.0.0.1:$second
CONF
}
