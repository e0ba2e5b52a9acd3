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
