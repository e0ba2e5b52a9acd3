# bench/h2's services: the material (bodies, a gRPC message and GrpcEcho, a certificate), the backend and
# each proxy's configuration, started and stopped through bench/lib/targets.sh (services backend, kodiak,
# nginx, haproxy in $out/run/), and the processes each target is charged the CPU of. Sourced by run.sh.

# prepare_material: the backend's bodies; with --grpc the message h2load sends and GrpcEcho, built against
# the project's test classpath; with --tls a certificate.
prepare_material() {
  local size
  backend_base=$out/run/backend
  mkdir -p "$backend_base/logs" "$backend_base/tmp" "$backend_base/www"
  for size in 100 10240; do head -c "$size" /dev/zero | tr '\0' b >"$backend_base/www/$size"; done
  grpc_dir=$out/grpc grpc_cp="" grpc_version="" grpc_message=""
  [ "$mode" != grpc ] || build_grpc_echo
  if $tls; then
    mkdir -p "$out/tls"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
      -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$out/tls/server.key" -out "$out/tls/server.pem" 2>/dev/null
    cat "$out/tls/server.pem" "$out/tls/server.key" >"$out/tls/haproxy.pem"   # HAProxy's crt: both in one file
  fi
}

build_grpc_echo() {
  # One gRPC message as h2load sends it (-d): not compressed (0), the length in 4 bytes big-endian, 100 bytes.
  grpc_message=$out/run/grpc-message.bin
  { printf '\0\0\0\0\x64'; head -c 100 /dev/zero | tr '\0' g; } >"$grpc_message"
  [ "$(stat -c %s "$grpc_message")" = 105 ] || die "the gRPC message file is not 105 bytes"
  # GrpcEcho against grpc-netty-shaded and grpc-stub of the project's test scope (pom.xml), compiled here.
  mkdir -p "$grpc_dir/classes" "$grpc_dir/checks"
  log "build GrpcEcho (mvn dependency:build-classpath, javac; $grpc_dir/build.log)"
  timeout 600 mvn -B -q -f "$root/pom.xml" dependency:build-classpath -Dmdep.outputFile="$grpc_dir/classpath.txt" \
    -Dmdep.includeScope=test >"$grpc_dir/build.log" 2>&1 </dev/null || { tail -n 20 "$grpc_dir/build.log" >&2; die "mvn dependency:build-classpath failed"; }
  grpc_cp=$grpc_dir/classes:$(cat "$grpc_dir/classpath.txt")
  [[ $grpc_cp == *grpc-netty-shaded* ]] || die "no grpc-netty-shaded on the test classpath of $root/pom.xml"
  grpc_version=$(tr ':' '\n' <"$grpc_dir/classpath.txt" | sed -n 's#.*/grpc-netty-shaded-\([^/]*\)\.jar$#\1#p' | head -n 1)
  "$javac17" -nowarn -d "$grpc_dir/classes" -cp "$grpc_cp" "$here/grpc/GrpcEcho.java" >>"$grpc_dir/build.log" 2>&1 \
    || { tail -n 20 "$grpc_dir/build.log" >&2; die "javac GrpcEcho.java failed"; }
}

# start_target NAME: the backend or a proxy, its configuration first (direct: nothing to start).
start_target() {
  case $1 in
    backend) start_backend ;;
    kodiak) mkdir -p "$out/run/kodiak"
            kodiak_conf >"$out/run/kodiak/kodiak.conf"
            target_start kodiak start_kodiak "${PORT[kodiak]}" "$out/run/kodiak/kodiak.conf" "$kodiak_java_opts" ;;
    nginx) mkdir -p "$out/run/nginx"
           nginx_conf "$out/run/nginx" >"$out/run/nginx/nginx.conf"
           target_start nginx start_nginx "${PORT[nginx]}" "$out/run/nginx/nginx.conf" ;;
    haproxy) mkdir -p "$out/run/haproxy"
             haproxy_conf >"$out/run/haproxy/haproxy.cfg"
             target_start haproxy start_haproxy "${PORT[haproxy]}" "$out/run/haproxy/haproxy.cfg" ;;
  esac
}

start_backend() {
  local base=$backend_base
  if [ "$mode" = grpc ]; then
    # GrpcEcho's own quiet logging: logback (on the test classpath) at WARN, as Kodiak's.
    target_start backend start_command "${PORT[backend]}" "GrpcEcho server 127.0.0.1 ${PORT[backend]}" \
      "$java17" -Xms256m -Xmx512m -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError \
      "-Dlogback.configurationFile=$root/bench/throughput/logback.xml" -cp "$grpc_cp" GrpcEcho server 127.0.0.1 "${PORT[backend]}"
    return
  fi
  sed -e "s#@BASE@#$base#g" -e "s#@PORT@#${PORT[backend]}#g" "$root/bench/throughput/backend.nginx.conf" >"$base/nginx.conf"
  if [ "$mode" = h2c ]; then
    # The same server on an h2c port (prior knowledge, nginx 1.22's listen ... http2 without ssl).
    sed -i "s#^\( *listen 127\.0\.0\.1:${PORT[backend]}\) #\1 http2 #" "$base/nginx.conf"
    grep -q "listen 127\.0\.0\.1:${PORT[backend]} http2 " "$base/nginx.conf" || die "no listen line to make http2 in $base/nginx.conf"
  fi
  target_start backend start_nginx "${PORT[backend]}" "$base/nginx.conf"
}

nginx_conf() {   # DIR
  local base=$1 listen tls_lines="" upstream_lines
  if [ "$mode" = http1 ]; then
    upstream_lines='proxy_pass http://backend;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffer_size 16k;
            proxy_buffers 8 16k;'
  else
    # HTTP/2 to the backend: grpc_pass is nginx's only way (any request, gRPC or not; one upstream
    # connection per request in flight, kept alive by keepalive below).
    upstream_lines='grpc_pass grpc://backend;
            grpc_buffer_size 16k;'
  fi
  if $tls; then
    listen="listen 127.0.0.1:${PORT[nginx]} ssl http2 backlog=4096;"
    tls_lines="ssl_certificate $out/tls/server.pem; ssl_certificate_key $out/tls/server.key; ssl_protocols TLSv1.3 TLSv1.2;"
  else
    # A plain listener with http2 only: h2c by prior knowledge (nginx 1.22).
    listen="listen 127.0.0.1:${PORT[nginx]} http2 backlog=4096;"
  fi
  cat <<CONF
daemon off;
master_process on;
worker_processes 2;          # one per core, as Kodiak gets two selector threads and HAProxy two threads
worker_rlimit_nofile 20000;
pid $base/nginx.pid;
error_log $base/logs/error.log warn;
events { worker_connections 19000; }
http {
    access_log off;
    client_body_temp_path $base/tmp/client_body; proxy_temp_path $base/tmp/proxy; fastcgi_temp_path $base/tmp/fastcgi;
    uwsgi_temp_path $base/tmp/uwsgi; scgi_temp_path $base/tmp/scgi;
    # Also HTTP/2's requests per connection (default 1,000, then GOAWAY) and idle time since nginx 1.19.7.
    keepalive_timeout 600s;
    keepalive_requests 100000000;
    tcp_nodelay on;
    server_tokens off;
    upstream backend {
        server 127.0.0.1:${PORT[backend]};
        keepalive 2048;      # above the 1,000 streams in flight: never closes a connection it needs again
        keepalive_requests 100000000;
        keepalive_timeout 600s;
    }
    server {
        $listen
        $tls_lines
        location / {
            $upstream_lines
        }
    }
}
CONF
}

haproxy_conf() {
  local bind
  if $tls; then
    bind="bind 127.0.0.1:${PORT[haproxy]} ssl crt $out/tls/haproxy.pem alpn h2,http/1.1 backlog 4096"
  else
    bind="bind 127.0.0.1:${PORT[haproxy]} proto h2 backlog 4096"
  fi
  cat <<CONF
global
    maxconn 9000
    nbthread 2                  # one per core, like nginx's workers and Kodiak's selector threads
    tune.pool-low-fd-ratio 90
    tune.pool-high-fd-ratio 95

defaults
    mode http
    option http-keep-alive
    http-reuse always           # any idle upstream connection may carry any client's request
    timeout connect 5s
    timeout client 600s
    timeout http-keep-alive 600s
    timeout server 30s
    maxconn 9000

frontend bench
    $bind
    default_backend upstream

backend upstream
    server upstream 127.0.0.1:${PORT[backend]}$([ "$mode" = http1 ] || echo ' proto h2')
CONF
}

kodiak_conf() {
  local tls_block="" routes
  if [ "$mode" = http1 ]; then
    routes="routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:${PORT[backend]}\" } ]"
  else
    # HTTP/2 to the backend (h2c by prior knowledge): a group with protocol = "h2"; its pool settings are upstream's below.
    routes="upstreams { backend { protocol = \"h2\", servers = [ \"http://127.0.0.1:${PORT[backend]}\" ] } }
  routes = [ { prefix = \"/\", upstream = \"http://backend/\" } ]"
  fi
  $tls && tls_block="tls { certificate = \"$out/tls/server.pem\", key = \"$out/tls/server.key\" }"
  cat <<CONF
# The plain listener takes h2c by prior knowledge (listener.http2 = true, the default); a TLS one offers h2 by ALPN.
proxy {
  listener {
    host = "127.0.0.1"
    port = ${PORT[kodiak]}
    # One selector per core and no hand-off to workers, as in bench/throughput/kodiak.conf.
    selector-threads = 2
    io-strategy = "same-thread"
    idle-timeout = 600s
    $tls_block
  }
  $routes
  upstream {
    persistent-connections = true
    max-connections = 9000      # above the 1,000 streams in flight: the pool never queues
    response-timeout = 30s
    idle-timeout = 600s
  }
  admin { enabled = false }
  shutdown { grace-period = 5s }
}
CONF
}

# A target's processes, whose CPU it is charged: the JVM, nginx's master and workers, HAProxy's process;
# direct's are the backend's.
target_pids() {
  local name=$1 pid
  [ "$name" = direct ] && name=backend
  pid=$(target_pid "$name") || return 1
  echo "$pid"
  pgrep -P "$pid" || true
}
