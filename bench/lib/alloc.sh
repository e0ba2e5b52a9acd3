# Bytes a JVM allocates over a measured window, on its own process, with JFR: a recording that holds only
# each thread's allocation counter (bench/lib/alloc.jfc) is started by jcmd just before the window and
# stopped just after it, and bench/lib/JfrAlloc.java sums the counters' growth over the JVM's threads.
# Call alloc_window_start before taking the window's first CPU sample and alloc_window_end after its last,
# so that jcmd's own work in the JVM stays outside the CPU figures. Sourced.
#
#   alloc_window_start JAVA PID FILE   start recording PID (FILE: where the recording goes); 1 if jcmd failed
#   alloc_window_end JAVA PID FILE     stop it and print "BYTES THREADS", or "- -" when it cannot tell
# JAVA is the JDK's java (jcmd and javac beside it); JfrAlloc is compiled once, next to FILE's directory.

alloc_window_start() {
  local java=$1 pid=$2 file=$3
  mkdir -p "$(dirname "$file")"
  rm -f "$file"
  timeout 30 "$(dirname "$java")/jcmd" "$pid" JFR.start name=bench-alloc \
    settings="$BENCH_ROOT/bench/lib/alloc.jfc" >>"$file.log" 2>&1
}

alloc_window_end() {
  local java=$1 pid=$2 file=$3 classes
  classes=$(dirname "$file")/.jfr-alloc-classes
  if ! timeout 30 "$(dirname "$java")/jcmd" "$pid" JFR.stop name=bench-alloc filename="$file" >>"$file.log" 2>&1 ||
     [ ! -s "$file" ]; then
    echo "- -"
    return 0
  fi
  # Compiled once per run directory rather than launched from source each window (a second saved per run).
  if [ ! -f "$classes/JfrAlloc.class" ]; then
    "$(dirname "$java")/javac" -d "$classes" "$BENCH_ROOT/bench/lib/JfrAlloc.java" >>"$file.log" 2>&1 || { echo "- -"; return 0; }
  fi
  "$java" -cp "$classes" JfrAlloc "$file" 2>>"$file.log" || echo "- -"
  # Read once: ~100 kB a window would add up to tens of MB over a full matrix.
  rm -f "$file"
}
