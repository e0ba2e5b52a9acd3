# bench/throughput's services: each target's configuration, from this directory's templates, for a phase
# (matrix: the static backend upstream; scale: a 500 ms stub per target), started and stopped through
# bench/lib/targets.sh. A proxy's service is named TARGET-PHASE; the backend "backend", a stub
# "stub-TARGET", a trace collector "collector-TARGET". Sourced by run.sh.

# The upstream port of a target in the current phase.
upstream_port() { if [ "$phase" = matrix ]; then echo "${PORT[backend]}"; else echo "${STUB_PORT_OF[$1]}"; fi; }
# Where wrk sends a target's requests: its proxy, or for direct the upstream itself.
target_port() { if [ "$1" = direct ]; then upstream_port direct; else echo "${PORT[$1]}"; fi; }
proxy_service() { [ "$1" = direct ] || echo "$1-$phase"; }
upstream_service() { if [ "$phase" = matrix ]; then echo backend; else echo "stub-$1"; fi; }

# The Kodiak jar Maven builds (not a sources or test jar).
kodiak_jar() {
  local j
  for j in "$kodiak_home"/target/kodiak.jar "$kodiak_home"/target/kodiak-*.jar; do
    [ -f "$j" ] || continue
    case $j in *-sources.jar|*-javadoc.jar|*-tests.jar) continue ;; esac
    echo "$j"
    return 0
  done
  return 1
}

# Builds Kodiak when its jar is missing or older than the sources; keeps a copy of jar and libraries in
# the run's directory, so that a rebuild during the run cannot change the classes under a running JVM.
prepare_kodiak() {
  local jar="" log=$out/logs/build.log
  jar=$(kodiak_jar) || jar=""
  if $build && { [ -z "$jar" ] || [ ! -d "$kodiak_home/target/lib" ] ||
      [ -n "$(find "$kodiak_home/src/main" "$kodiak_home/pom.xml" -newer "$jar" -print -quit 2>/dev/null)" ]; }; then
    progress "build Kodiak: the sources are newer than its jar (mvn -Dmaven.test.skip=true -DskipTlsSuite=true package; logs/build.log)"
    # -DskipTlsSuite: pom.xml's extra test runs set their own skip, which maven.test.skip does not reach.
    if ! JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$java17")")") \
        timeout 900 mvn -B -q -f "$kodiak_home/pom.xml" -Dmaven.test.skip=true -DskipTlsSuite=true package >"$log" 2>&1; then
      jar=$(kodiak_jar) || { tail -n 30 "$log" >&2; die "building Kodiak failed and there is no jar to fall back on"; }
      progress "WARNING: building Kodiak failed (logs/build.log); measuring the existing jar of $(date -r "$jar" '+%F %T')"
      kodiak_build_note="build failed, measured the jar of $(date -r "$jar" '+%F %T')"
    fi
    jar=$(kodiak_jar) || die "no Kodiak jar in target/ after the build"
  fi
  [ -n "$jar" ] || die "no Kodiak jar in target/ (run without --no-build)"
  kodiak_dist=$out/run/kodiak-dist
  mkdir -p "$kodiak_dist/lib"
  cp "$jar" "$kodiak_dist/kodiak.jar"
  cp "$kodiak_home"/target/lib/*.jar "$kodiak_dist/lib/"
  TARGETS_KODIAK_JAR=$kodiak_dist/kodiak.jar
  kodiak_jar_info="$(basename "$jar") of $(date -r "$jar" '+%F %T')"
}

# Undertow's and Vert.x's proxies (bench/jvm-proxies/*.java) run from their source files on that module's classpath.
prepare_jvm_proxies() {
  local module=$root/bench/jvm-proxies
  progress "build bench/jvm-proxies (Undertow, Vert.x from Maven Central)"
  mvn -q -B -f "$module/pom.xml" package >>"$out/logs/services.log" 2>&1 \
    || die "bench/jvm-proxies did not build; see $out/logs/services.log"
  jvm_proxies_classpath=$(cat "$module/target/classpath.txt")
}

kodiak_java_opts() {
  # As shipped: bin/proxy.sh's own -Dlogback.configurationFile (conf/logback.xml) stays.
  if $as_shipped; then echo "${KODIAK_JAVA_OPTS:-}"; return; fi
  echo "-Dlogback.configurationFile=$here/logback.xml${KODIAK_JAVA_OPTS:+ $KODIAK_JAVA_OPTS}"
}

# Kodiak's configuration for TARGET (kodiak or a tracing variant) in DIR/kodiak.conf.
write_kodiak_conf() {
  local target=$1 dir=$2 f n=0
  sed -e "s#@PORT@#${PORT[$target]}#g" -e "s#@UPSTREAM_PORT@#$(upstream_port "$target")#g" "$here/kodiak.conf" >"$dir/kodiak.conf"
  if $as_shipped; then
    echo "proxy.admin { enabled = true, host = \"127.0.0.1\", port = ${ADMIN_PORT[$target]} }" >>"$dir/kodiak.conf"
  fi
  if [ -n "${TRACE_SAMPLER[$target]:-}" ]; then
    echo "proxy.tracing { enabled = true, sampler = ${TRACE_SAMPLER[$target]}, otlp.endpoint = \"http://127.0.0.1:${COLLECTOR_PORT[$target]}/v1/traces\" }" \
      >>"$dir/kodiak.conf"
  fi
  # Each --kodiak-conf file gets @UPSTREAM_PORT@ filled in too (a route of its own needs the backend's port).
  for f in "${kodiak_confs[@]+"${kodiak_confs[@]}"}"; do
    n=$((n + 1))
    sed -e "s#@UPSTREAM_PORT@#$(upstream_port "$target")#g" "$f" >"$dir/kodiak-extra-$n.conf"
    echo "include file(\"$dir/kodiak-extra-$n.conf\")" >>"$dir/kodiak.conf"
  done
}

# start_proxy TARGET: the target's proxy for the current phase.
start_proxy() {
  local target=$1 name=$1-$phase dir=$out/run/$1-$phase log_path=off
  mkdir -p "$dir/logs"
  progress "start $name"
  case $target in
    kodiak*)
      write_kodiak_conf "$target" "$dir"
      target_start "$name" start_kodiak "${PORT[$target]}" "$dir/kodiak.conf" "$(kodiak_java_opts)" ;;
    nginx)
      # As shipped, nginx logs every request the way its default configuration does: unbuffered, combined format.
      $as_shipped && log_path=$dir/logs/access.log
      sed -e "s#@BASE@#$dir#g" -e "s#@PORT@#${PORT[nginx]}#g" -e "s#@UPSTREAM_PORT@#$(upstream_port nginx)#g" \
        -e "s#^    access_log off;#    access_log $log_path;#" "$here/nginx.conf" >"$dir/nginx.conf"
      target_start "$name" start_nginx "${PORT[nginx]}" "$dir/nginx.conf" ;;
    haproxy)
      sed -e "s#@PORT@#${PORT[haproxy]}#g" -e "s#@UPSTREAM_PORT@#$(upstream_port haproxy)#g" "$here/haproxy.cfg" >"$dir/haproxy.cfg"
      target_start "$name" start_haproxy "${PORT[haproxy]}" "$dir/haproxy.cfg" ;;
    relay) target_start "$name" start_java_source "${PORT[relay]}" "$kodiak_dist/lib/*" "$here/GrizzlyRelay.java" "$(upstream_port relay)" ;;
    nio-relay) target_start "$name" start_java_source "${PORT[nio-relay]}" "$kodiak_dist/lib/*" "$here/NioRelay.java" "$(upstream_port nio-relay)" ;;
    undertow) target_start "$name" start_java_source "${PORT[undertow]}" "$jvm_proxies_classpath" "$root/bench/jvm-proxies/UndertowProxy.java" "$(upstream_port undertow)" ;;
    vertx) target_start "$name" start_java_source "${PORT[vertx]}" "$jvm_proxies_classpath" "$root/bench/jvm-proxies/VertxProxy.java" "$(upstream_port vertx)" ;;
  esac
}

# The static backend: nginx serving a file of each payload's size (bench/throughput/backend.nginx.conf).
start_backend() {
  local dir=$out/run/backend size
  mkdir -p "$dir/logs" "$dir/www"
  for size in "${payloads[@]}"; do head -c "$size" /dev/zero | tr '\0' 'b' >"$dir/www/$size"; done
  sed -e "s#@BASE@#$dir#g" -e "s#@PORT@#${PORT[backend]}#g" "$here/backend.nginx.conf" >"$dir/nginx.conf"
  progress "start backend"
  target_start backend start_nginx "${PORT[backend]}" "$dir/nginx.conf"
}

start_phase() {
  local t
  if [ "$phase" = matrix ]; then
    start_backend || exit 1
  else
    # One stub per target: the idle upstream connections one proxy keeps after its 8,000-connection run
    # would otherwise crowd the next target's connections out of a shared stub's 20,000 files.
    for t in "${targets[@]}"; do progress "start stub-$t"; target_start "stub-$t" start_stub "${STUB_PORT_OF[$t]}" || exit 1; done
  fi
  for t in "${targets[@]}"; do [ "$t" = direct ] || start_proxy "$t" || exit 1; done
}

stop_phase() {
  local t
  for t in "${targets[@]}"; do [ "$t" = direct ] || { progress "stop $t-$phase"; target_stop "$t-$phase"; }; done
  if [ "$phase" = matrix ]; then
    target_stop backend
  else
    for t in "${targets[@]}"; do target_stop "stub-$t"; done
  fi
}

# The trace collectors run for the whole bench, one per tracing target, so each one's counts are its own.
start_collectors() {
  local t
  for t in "${targets[@]}"; do
    [ -n "${TRACE_SAMPLER[$t]:-}" ] || continue
    progress "start collector-$t (OTLP/HTTP on :${COLLECTOR_PORT[$t]})"
    target_start "collector-$t" start_otlp_sink "${COLLECTOR_PORT[$t]}" || exit 1
  done
}

# "requests bytes" a target's collector has received so far, or "- -" for a target without one.
collector_counts() {
  [ -n "${TRACE_SAMPLER[$1]:-}" ] || { echo "- -"; return 0; }
  curl -sS --max-time 2 "http://127.0.0.1:${COLLECTOR_PORT[$1]}/stats" 2>/dev/null |
    sed -n 's/.*"requests": *\([0-9]*\).*"bytes": *\([0-9]*\).*/\1 \2/p' | grep . || echo "- -"
}
