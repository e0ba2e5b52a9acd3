# CPU time of processes and of the machine, from /proc, for the benches that charge a proxy its own CPU
# (core, throughput, h2). Sourced.
#
#   cpu_ticks PID...   utime + stime of those processes, in clock ticks (getconf CLK_TCK per second)
#   machine_ticks      "busy total" ticks of the whole machine

cpu_ticks() {
  local pid total=0 f
  for pid in "$@"; do
    # The fields after the command name (which may hold spaces and parentheses): utime is the 12th, stime the 13th.
    read -r -a f <<<"$(sed 's/^.*) //' "/proc/$pid/stat")"
    total=$((total + f[11] + f[12]))
  done
  echo "$total"
}

# "busy total" clock ticks of the whole machine, from /proc/stat (steal counts in the total only:
# time the hypervisor gave to someone else is not this machine's work).
machine_ticks() {
  local _cpu user nice system idle iowait irq softirq steal _rest
  read -r _cpu user nice system idle iowait irq softirq steal _rest </proc/stat
  echo "$((user + nice + system + irq + softirq)) $((user + nice + system + idle + iowait + irq + softirq + steal))"
}

# Resident memory (kB) and open files of processes, summed, for the benches that check a daemon leaks
# nothing (faults). Processes that are gone count as 0.
rss_kb() {
  local pid total=0 kb
  for pid in "$@"; do
    kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || kb=0
    total=$((total + ${kb:-0}))
  done
  echo "$total"
}

fd_count() {
  local pid total=0 n
  for pid in "$@"; do
    n=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l) || n=0
    total=$((total + n))
  done
  echo "$total"
}

# The per-run sampling of bench/throughput: a service's process tree, its CPU split into user and system
# time and by thread, the JVM's compiler and collector threads, and the machine's accepted connections.
#
#   tree_pids PID            PID and all its descendants (nginx's master and workers; a JVM is one process)
#   user_sys_ticks PID...    "user system" clock ticks summed over PIDs (every thread of each)
#   thread_ticks PID         "tid<TAB>name<TAB>ticks" per thread (JVM threads carry their names)
#   jvm_split PID            "jit gc" ticks: C1/C2 compiler threads; GC threads plus the VM thread (safepoints)
#   tcp_accepts              TCP connections accepted on this machine so far (PassiveOpens), or "-"

tree_pids() {
  ps -e -o pid=,ppid= | awk -v r="$1" '
    { parent[$1] = $2 }
    END {
      want[r] = 1; n = 1
      while (n) { n = 0; for (p in parent) if (!(p in want) && (parent[p] in want)) { want[p] = 1; n = 1 } }
      for (p in want) print p
    }'
}

user_sys_ticks() {
  local u=0 s=0 pid line
  local -a f
  for pid in "$@"; do
    read -r line <"/proc/$pid/stat" 2>/dev/null || continue
    read -r -a f <<<"${line##*) }"
    u=$((u + f[11])) s=$((s + f[12]))
  done
  echo "$u $s"
}

thread_ticks() {
  local task line name
  local -a f
  for task in /proc/"$1"/task/*; do
    read -r line <"$task/stat" 2>/dev/null || continue
    name=${line#*(}
    name=${name%)*}
    read -r -a f <<<"${line##*) }"
    printf '%s\t%s\t%s\n' "${task##*/}" "$name" $((f[11] + f[12]))
  done
}

# Compiler threads come and go, so a difference of two samples can miss one that exited meanwhile.
jvm_split() {
  thread_ticks "$1" | awk -F'\t' '
    $2 ~ /^C[12] Compiler/ { jit += $3 }
    $2 ~ /^(GC Thread|G1 )/ || $2 == "VM Thread" { gc += $3 }
    END { print jit + 0, gc + 0 }'
}

# Over a run, what is left after wrk's own connections and the backend's count is clients reconnecting:
# a proxy that closed connections wrk wanted to keep (or, rarely, someone else's connections).
tcp_accepts() {
  awk '$1 == "Tcp:" && ++seen == 2 { print $7; found = 1 } END { if (!found) print "-" }' /proc/net/snmp
}
