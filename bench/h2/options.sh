# bench/h2's command line: the options and their defaults (full or --quick), the checks that stop a bad
# argument before anything starts (exit 2), the tools, the Kodiak to measure, and the ports. Sourced by
# run.sh; sets mode, tls, targets, rounds, seconds, warm, kodiak_first_warm, CELLS, PORT, scheme and the
# Kodiak and tool variables the other pieces read.

ALL_TARGETS=(kodiak nginx haproxy direct)
# The cells: body bytes (with --grpc, the message's), connections, streams per connection.
CELLS=("100 10 100" "100 100 10" "10240 10 100" "10240 100 10")
GRPC_CELLS=("100 10 100" "100 100 10")
GRPC_PATH=/bench.Echo/Unary
GRPC_CHECK_CALLS=100
USAGE="usage: bin/bench.sh h2 [--quick] [--rounds N] [--seconds N] [--targets kodiak,nginx,haproxy,direct] [--tls] [--backend http1|h2c] [--grpc]"

die() { echo "h2: $*" >&2; exit 2; }
log() { echo "[h2 $(date +%H:%M:%S)] $*"; }
in_targets() { [[ " ${targets[*]} " == *" $1 "* ]]; }

parse_options() {
  local quick=false backend=http1 targets_arg="" requested=() t n
  tls=false grpc=false rounds="" seconds=""
  while [ $# -gt 0 ]; do
    case $1 in
      --quick) quick=true ;;
      --tls) tls=true ;;
      --grpc) grpc=true ;;
      --backend) backend=${2:?--backend needs a value: http1 or h2c}; shift ;;
      --rounds) rounds=${2:?--rounds needs a value}; shift ;;
      --seconds) seconds=${2:?--seconds needs a value}; shift ;;
      --targets) targets_arg=${2:?--targets needs a value}; shift ;;
      -h|--help) usage; exit 0 ;;
      *) echo "$USAGE" >&2; exit 2 ;;
    esac
    shift
  done
  if $quick; then
    rounds=${rounds:-1} seconds=${seconds:-5} kodiak_first_warm=8 warm=2
  else
    rounds=${rounds:-3} seconds=${seconds:-10} kodiak_first_warm=15 warm=3
  fi
  for n in "$rounds" "$seconds"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "--rounds and --seconds take positive whole numbers"
  done
  case $backend in
    http1|h2c) ;;
    *) die "--backend takes http1 or h2c, not '$backend'" ;;
  esac
  # mode: what the proxies forward to, and how: http1, h2c, or grpc (its own h2c backend, the gRPC server).
  if $grpc; then
    [ "$backend" = http1 ] || die "--grpc has its own backend (the gRPC server, over h2c): no --backend with it"
    mode=grpc
    CELLS=("${GRPC_CELLS[@]}")
  else
    mode=$backend
  fi
  # direct: h2load straight to the backend, which speaks h2c (not HTTP/1.1, not TLS). Default with --grpc.
  if [ -z "$targets_arg" ]; then
    targets_arg=kodiak,nginx,haproxy
    [ "$mode" = grpc ] && ! $tls && targets_arg+=,direct
  fi
  targets=()
  IFS=, read -r -a requested <<<"$targets_arg"
  for t in ${requested[@]+"${requested[@]}"}; do
    [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || die "unknown target '$t' (known: ${ALL_TARGETS[*]})"
    [[ " ${targets[*]-} " == *" $t "* ]] || targets+=("$t")
  done
  [ ${#targets[@]} -gt 0 ] || die "no targets"
  if in_targets direct; then
    [ "$mode" != http1 ] || die "target direct needs an HTTP/2 backend (--backend h2c or --grpc): the HTTP/1.1 one does not speak h2c"
    ! $tls || die "target direct has no TLS (the backend is h2c): leave it out with --tls"
  fi
  if $tls; then scheme=https; else scheme=http; fi
}

# The tools, from Debian when missing; java17 (and with --grpc javac17) for Kodiak and GrpcEcho.
ensure_tools() {
  local tools=(nginx curl jq)
  in_targets haproxy && tools+=(haproxy)
  $tls && tools+=(openssl)
  ensure_packages h2 "${tools[@]}" || exit 1
  # The package is not named after its command: nghttp2-client provides h2load.
  command -v h2load >/dev/null 2>&1 || ensure_packages h2 nghttp2-client || exit 1
  command -v h2load >/dev/null 2>&1 || die "h2load not found after installing nghttp2-client"
  export PATH=$PATH:/usr/sbin
  java17=$(daemon_java 17) || die "no Java 17 found"
  if [ "$mode" = grpc ]; then
    javac17=$(dirname "$(readlink -f "$java17")")/javac
    [ -x "$javac17" ] || javac17=$(command -v javac) || die "--grpc: no javac (a JDK 17) to compile GrpcEcho"
    command -v mvn >/dev/null 2>&1 || die "--grpc: no mvn to resolve the gRPC libraries (the project's test classpath)"
  fi
  hz=$(getconf CLK_TCK)
}

# The Kodiak measured: the checkout's (KODIAK_HOME, default this one), built when stale and started with its
# own bin/proxy.sh; or KODIAK_JAR, copied into the run with its libraries and started with java -jar and
# bin/proxy.sh's JVM defaults. Sets kodiak_home, kodiak_info and the TARGETS_* variables start_kodiak reads.
choose_kodiak() {
  local jar lib="" d commit
  kodiak_home=$(cd "${KODIAK_HOME:-$root}" 2>/dev/null && pwd) || die "KODIAK_HOME=${KODIAK_HOME:-} is not a directory"
  kodiak_info="" kodiak_java_opts=""
  TARGETS_JAVA=$java17 TARGETS_KODIAK_HOME=$kodiak_home TARGETS_KODIAK_LAUNCH=proxy.sh
  in_targets kodiak || return 0
  if [ -n "${KODIAK_JAR:-}" ]; then
    jar=$(readlink -f "$KODIAK_JAR") || die "KODIAK_JAR=$KODIAK_JAR not found"
    [ -f "$jar" ] || die "KODIAK_JAR=$KODIAK_JAR is not a file"
    for d in "$(dirname "$jar")/lib" "$(dirname "$jar")/../lib"; do
      [ -d "$d" ] && { lib=$(cd "$d" && pwd); break; }
    done
    [ -n "$lib" ] || die "no lib/ beside or above $jar (Kodiak's libraries)"
    # Its manifest names its libraries in lib/ beside it: a copy in that layout, which a rebuild cannot change.
    mkdir -p "$out/run/kodiak-dist/lib"
    cp "$jar" "$out/run/kodiak-dist/kodiak.jar"
    cp "$lib"/*.jar "$out/run/kodiak-dist/lib/"
    TARGETS_KODIAK_LAUNCH=java TARGETS_KODIAK_JAR=$out/run/kodiak-dist/kodiak.jar
    kodiak_java_opts="-Xms256m -Xmx1g -XX:+UseParallelGC -XX:+ExitOnOutOfMemoryError "
    kodiak_info="$jar of $(date -r "$jar" '+%F %T'), started with java -jar"
  else
    jar=$kodiak_home/target/kodiak.jar
    # The code in the checkout is what is measured: built first when the jar is missing or older
    # than the sources (as the other benches do; bin/lib/build.sh).
    kodiak_build_if_stale "$kodiak_home" "$out/logs/build.log" || die "the build of $kodiak_home failed"
    [ -f "$jar" ] && [ -d "$kodiak_home/target/lib" ] ||
      die "no $jar and target/lib/ after the build, or set KODIAK_HOME or KODIAK_JAR"
    kodiak_info="$jar of $(date -r "$jar" '+%F %T'), started with $kodiak_home/bin/proxy.sh"
    if [ -n "$(find "$kodiak_home/src/main" "$kodiak_home/pom.xml" -newer "$jar" -print -quit 2>/dev/null)" ]; then
      kodiak_info+="; NOTE: sources in $kodiak_home are newer than the jar (measured the jar as it is)"
    fi
    commit=$(git -C "$kodiak_home" rev-parse --short HEAD 2>/dev/null || echo unknown)
    git -C "$kodiak_home" diff --quiet HEAD -- src pom.xml 2>/dev/null || commit+=" + uncommitted changes in src/ or pom.xml"
    kodiak_info+="; checkout at $commit"
  fi
  kodiak_java_opts+="-Dlogback.configurationFile=$root/bench/throughput/logback.xml${KODIAK_JAVA_OPTS:+ $KODIAK_JAVA_OPTS}"
}

# H2_PORT_BASE (default 9900): the backend, Kodiak, nginx and HAProxy on the first free ports from there.
choose_ports() {
  local base=${H2_PORT_BASE:-9900} next s
  [[ $base =~ ^[0-9]+$ ]] && ((base >= 1024 && base <= 65000)) || die "H2_PORT_BASE must be a port from 1024 to 65000"
  declare -gA PORT
  next=$base
  for s in backend kodiak nginx haproxy; do
    PORT[$s]=$(daemon_free_port "$next")
    next=$((PORT[$s] + 1))
  done
  PORT[direct]=${PORT[backend]}
}
