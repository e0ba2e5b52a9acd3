# Starting and stopping what a benchmark target needs; sourced, not executed (bench/gatling/run.sh;
# other benchmarks may reuse it). Each service runs under its own directory below a run's base
# directory, through its own control script, which records its pid and stops it by that pid.
#
# Needs: $root (the repository). Services: stub, kodiak, mule, nginx, haproxy.
# A run starts a service once, for the first target that needs it, and stops it after the last
# (start_service, stop_service, needed_later); stop_services stops what is still running, newest first.
# These control scripts keep their own pid files, so the services are not bench/lib/targets.sh's.
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

# ---- a run's services: started once, stopped by their control scripts (by pid), newest first at the end ----
started=()      # services started by this run, in start order

stop_service() {
  local service=$1 remaining=() s
  bench_service_ctl "$service" "$out/run" stop >>"$out/logs/services.log" 2>&1 \
    || echo "bench: stopping $service failed; see $out/logs/services.log" >&2
  for s in "${started[@]}"; do [ "$s" = "$service" ] || remaining+=("$s"); done
  started=("${remaining[@]+"${remaining[@]}"}")
}

start_service() {
  local service=$1
  [[ " ${started[*]} " == *" $service "* ]] && return 0
  [ -x "$(bench_service_script "$service")" ] || return 1
  progress "start $service"
  # Recorded before it is up, so that Ctrl-C during a slow start still stops it.
  started+=("$service")
  if ! bench_service_ctl "$service" "$out/run" start >>"$out/logs/services.log" 2>&1; then
    echo "bench: $service did not start; last lines of $out/logs/services.log:" >&2
    tail -n 15 "$out/logs/services.log" | sed 's/^/    /' >&2
    stop_service "$service"
    return 1
  fi
}

needed_later() {
  local service=$1 t
  shift
  for t in "$@"; do [ "${SERVICE[$t]}" = "$service" ] && return 0; done
  return 1
}

stop_services() {
  local i
  for ((i = ${#started[@]} - 1; i >= 0; i--)); do
    progress "stop ${started[i]}"
    stop_service "${started[i]}"
  done
}
