# One process's resources as a long-running bench samples them (bench/soak). Sourced. Each function
# prints one number, or nothing when it cannot tell (an empty TSV field: null in the results).
#
#   heap_after_gc_kib JCMD PID   heap in use right after a full collection (jcmd GC.run, then the
#                                generations' "used" in GC.heap_info, Metaspace left out; each
#                                jcmd within a timeout)
#   rss_kib PID                  resident memory (VmRSS)
#   threads_of PID               threads (Threads in /proc/PID/status)
#   fds_of PID                   open file descriptors
#   prom_sum FILE NAME           the sum of a Prometheus series over its labels in a /metrics dump;
#                                nothing when the dump has no such series (a build without that gauge)

heap_after_gc_kib() {
  # Bounded: a JVM that hangs must not hang the bench with it.
  timeout 60 "$1" "$2" GC.run >/dev/null 2>&1 || return 0
  timeout 30 "$1" "$2" GC.heap_info 2>/dev/null | awk '
    /Metaspace/ { exit }
    /used [0-9]+K/ { for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K.*/, "", v); s += v; n++ } }
    END { if (n) print s }'
}

rss_kib() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null || true; }

threads_of() { awk '$1 == "Threads:" { print $2 }' "/proc/$1/status" 2>/dev/null || true; }

fds_of() {
  [ -d "/proc/$1/fd" ] || return 0
  find "/proc/$1/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l
}

prom_sum() {
  awk -v name="$2" '
    index($0, name) == 1 && (substr($0, length(name) + 1, 1) == "{" || substr($0, length(name) + 1, 1) == " ") { s += $NF; n++ }
    END { if (n) printf "%.0f\n", s }' "$1"
}
