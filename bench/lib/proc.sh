# CPU time of processes, from /proc, for the benches that charge a proxy its own CPU (core, tls). Sourced.
#
#   cpu_ticks PID...   utime + stime of those processes, in clock ticks (getconf CLK_TCK per second)

cpu_ticks() {
  local pid total=0 f
  for pid in "$@"; do
    # The fields after the command name (which may hold spaces and parentheses): utime is the 12th, stime the 13th.
    read -r -a f <<<"$(sed 's/^.*) //' "/proc/$pid/stat")"
    total=$((total + f[11] + f[12]))
  done
  echo "$total"
}
