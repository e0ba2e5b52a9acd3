# Starting and stopping what a benchmark target needs; sourced, not executed (bench/gatling/run.sh;
# other benchmarks may reuse it). Each service runs under its own directory below a run's base
# directory, through its own control script, which records its pid and stops it by that pid.
#
# Needs: $root (the repository). Services: stub, kodiak, mule, nginx, haproxy.
# BENCH_PORT_OFFSET (default 0) moves every port of the brief's contract by the same amount, so a
# benchmark can run on a machine where someone else already holds 8080 or 9401.

bench_port_offset=${BENCH_PORT_OFFSET:-0}
[[ $bench_port_offset =~ ^[0-9]+$ ]] || { echo "BENCH_PORT_OFFSET must be a number, got '$bench_port_offset'" >&2; return 2; }

# The contract port of SERVICE or target moved by the offset.
bench_port() {
  local p
  case $1 in
    stub) p=8080 ;;
    kodiak) p=9401 ;;
    mule-pattern) p=9101 ;;
    mule-jetty) p=9201 ;;
    mule-jetty-nocont) p=9202 ;;
    mule-http) p=9301 ;;
    mule-http-nonpersistent) p=9302 ;;
    nginx) p=9501 ;;
    haproxy) p=9601 ;;
    *) echo "unknown service $1" >&2; return 2 ;;
  esac
  echo $((p + bench_port_offset))
}

# The control script of SERVICE.
bench_service_script() {
  case $1 in
    stub) echo "$root/bin/stub.sh" ;;
    kodiak) echo "$root/bin/proxy.sh" ;;
    mule) echo "$root/bench/mule/mule.sh" ;;
    nginx) echo "$root/bench/nginx/nginx.sh" ;;
    haproxy) echo "$root/bench/haproxy/haproxy.sh" ;;
    *) echo "unknown service $1" >&2; return 2 ;;
  esac
}

# Kodiak's bench config; with a port offset, a config in BASE that includes it and moves the ports.
# KODIAK_BENCH_CONF lets one try other Kodiak settings (I/O strategy, pool size) with the same bench.
bench_kodiak_conf() {
  local base=$1 conf=${KODIAK_BENCH_CONF:-$root/bench/kodiak/gatling.conf}
  if [ "$bench_port_offset" = 0 ]; then
    echo "$conf"
    return
  fi
  mkdir -p "$base"
  cat >"$base/gatling-offset.conf" <<CONF
include file("$(realpath "$conf")")
proxy.listener.port = $(bench_port kodiak)
proxy.routes = [
  { prefix = "/", upstream = "http://127.0.0.1:$(bench_port stub)/ProxiedServiceStub/ServiceStubServlet" }
]
CONF
  echo "$base/gatling-offset.conf"
}

# bench_service_ctl SERVICE BASE start|stop|status — runs the control script with this run's directories.
bench_service_ctl() {
  local service=$1 base=$2 action=$3 script
  script=$(bench_service_script "$service")
  if [ ! -x "$script" ]; then
    echo "$service is not available: $script does not exist yet" >&2
    return 127
  fi
  case $service in
    # JAVA_OPTS is meant for Kodiak; the stub gets its own.
    stub) JAVA_OPTS=${STUB_JAVA_OPTS:-} STUB_BASE=$base/stub STUB_PORT=$(bench_port stub) "$script" "$action" ;;
    # No access log, like the nginx and HAProxy bench configs; the caller's JAVA_OPTS come last and win.
    kodiak)
      JAVA_OPTS="-Dlogback.configurationFile=$root/bench/kodiak/logback.xml ${JAVA_OPTS:-}" \
        PROXY_CONF=$(bench_kodiak_conf "$base/kodiak") PROXY_BASE=$base/kodiak "$script" "$action"
      ;;
    mule)
      MULE_BASE=$base/mule MULE_STUB_PORT=$(bench_port stub) \
        MULE_PORT_PATTERN=$(bench_port mule-pattern) MULE_PORT_JETTY=$(bench_port mule-jetty) \
        MULE_PORT_JETTY_NOCONT=$(bench_port mule-jetty-nocont) MULE_PORT_HTTP=$(bench_port mule-http) \
        MULE_PORT_HTTP_NONPERSISTENT=$(bench_port mule-http-nonpersistent) "$script" "$action"
      ;;
    nginx) NGINX_BASE=$base/nginx NGINX_PORT=$(bench_port nginx) NGINX_STUB_PORT=$(bench_port stub) "$script" "$action" ;;
    haproxy) HAPROXY_BASE=$base/haproxy HAPROXY_PORT=$(bench_port haproxy) HAPROXY_STUB_PORT=$(bench_port stub) "$script" "$action" ;;
  esac
}
