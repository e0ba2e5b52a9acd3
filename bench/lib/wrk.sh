# What one wrk run printed (run it with --latency for the percentiles), as tab-separated values for a
# bench's TSV of results. Sourced by the benches that load with wrk (core, tls).
#
#   wrk_stats FILE     one line of WRK_STATS_FIELDS, in that order:
#     requests         responses wrk counted (non-2xx/3xx included)
#     ok ko            2xx/3xx responses; the others plus socket errors (connect, read, write, timeout)
#     errors           the socket errors alone
#     rps              wrk's Requests/sec
#     p50_ms p95_ms p99_ms mean_ms   latency; wrk prints no p95 (empty: null in the results), and no
#                      percentiles without --latency
#   every field is empty when wrk printed no totals (it failed): not measured, rather than zero errors
#
# wrk writes latencies with a unit (us, ms, s); they are turned into milliseconds here.

WRK_STATS_FIELDS="requests ok ko errors rps p50_ms p95_ms p99_ms mean_ms"

wrk_stats() {
  awk -v OFS='\t' '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /[0-9]s$/) return v * 1000; return "" }
    $1 == "Latency" && $2 ~ /[0-9]/ { mean = ms($2) }
    $1 == "50%" { p50 = ms($2) }
    $1 == "99%" { p99 = ms($2) }
    / requests in / { requests = $1 }
    /^ *Socket errors:/ { gsub(",", ""); errors = $4 + $6 + $8 + $10 }
    /^ *Non-2xx or 3xx responses:/ { non2xx = $NF }
    /^Requests\/sec:/ { rps = $2 }
    # A wrk that printed no totals (it failed, or was stopped) measured nothing: every field empty (null),
    # which a check reads as "not measured", rather than zero requests with zero errors.
    END { if (requests == "") print "", "", "", "", "", "", "", "", ""
          else print requests + 0, requests - non2xx, non2xx + errors, errors + 0, rps, p50, "", p99, mean }' "$1"
}

# A bounded wrk run in the background, whose own CPU time is kept (bench/throughput). One at a time.
#
#   wrk_start LOG CPUFILE SECONDS CONNECTIONS URL SCRIPT [SCRIPT ARGS...]
#                      wrk -t2 with SCRIPT (a Lua file) for SECONDS, killed 60 s past that at the latest;
#                      WRK_JOB holds the pid of the subshell around it; CPUFILE gets wrk's CPU ticks
#   wrk_wait           waits for it; returns wrk's exit code
#   wrk_abort          stops a run in progress (Ctrl-C, errors); nothing when none is
WRK_JOB=""

wrk_start() {
  local log=$1 cpufile=$2 seconds=$3 conns=$4 url=$5 script=$6
  shift 6
  (
    rc=0
    timeout -k 5 $((seconds + 60)) wrk -t2 -c "$conns" -d "${seconds}s" --timeout 10s -s "$script" "$url" \
      -- "$@" >"$log" 2>&1 </dev/null || rc=$?
    # The subshell's cutime + cstime, read after waiting for wrk: wrk's CPU, and nothing else's.
    read -r line <"/proc/$BASHPID/stat"
    read -r -a f <<<"${line##*) }"
    echo "$((f[13] + f[14]))" >"$cpufile"
    exit "$rc"
  ) &
  WRK_JOB=$!
}

wrk_wait() {
  local rc=0
  wait "$WRK_JOB" || rc=$?
  WRK_JOB=""
  return "$rc"
}

wrk_abort() {
  [ -n "$WRK_JOB" ] || return 0
  local child
  for child in $(ps -o pid= --ppid "$WRK_JOB" 2>/dev/null); do kill -TERM "$child" 2>/dev/null || true; done
  wait "$WRK_JOB" 2>/dev/null || true
  WRK_JOB=""
}
