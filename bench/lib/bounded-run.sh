# A load generator (h2load, Gatling through Maven) run with a hard time limit, in the background so that a
# bench's traps can stop it, with the CPU time it used kept. One at a time. Sourced.
#
#   bounded_run LIMIT OUTPUT CPUFILE COMMAND...
#                   COMMAND under timeout LIMIT seconds (then SIGTERM, SIGKILL 20 s later), its output in
#                   OUTPUT, no input; CPUFILE gets the clock ticks COMMAND and its children used ("-": not
#                   kept); returns COMMAND's exit code (124 or 137 when the limit stopped it)
#   bounded_abort   stops the run in progress (Ctrl-C, errors); nothing when none is
BOUNDED_JOB=""

bounded_run() {
  local limit=$1 output=$2 cpufile=$3 rc=0
  shift 3
  (
    rc=0
    timeout -k 20 "$limit" "$@" >"$output" 2>&1 </dev/null || rc=$?
    # The subshell's cutime + cstime, read after waiting for COMMAND: its CPU and its children's, nothing else's.
    if [ "$cpufile" != - ]; then
      read -r line <"/proc/$BASHPID/stat"
      read -r -a f <<<"${line##*) }"
      echo "$((f[13] + f[14]))" >"$cpufile"
    fi
    exit "$rc"
  ) &
  BOUNDED_JOB=$!
  wait "$BOUNDED_JOB" || rc=$?
  BOUNDED_JOB=""
  return "$rc"
}

bounded_abort() {
  [ -n "$BOUNDED_JOB" ] || return 0
  local child
  # timeout(1) passes the signal on to COMMAND's whole process group (Maven's forked JVM included).
  for child in $(ps -o pid= --ppid "$BOUNDED_JOB" 2>/dev/null); do kill -TERM "$child" 2>/dev/null || true; done
  wait "$BOUNDED_JOB" 2>/dev/null || true
  BOUNDED_JOB=""
}
