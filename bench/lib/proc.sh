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
