# What FailoverLoad.java's request lines (start end method id status; epoch ms, status 0 for a
# connection error or a timeout) add up to, as tab-separated values for a bench's TSV of results.
# Sourced by the failover, reload and scaleout benches, which all load through FailoverLoad.java.
#
#   request_stats FILE [FROM_MS TO_MS [FIELD...]]
#
# The requests that started in [FROM_MS, TO_MS] (default: all), one line of the FIELDs asked for
# (default: every one of REQUEST_STATS_FIELDS, in that order):
#   requests ok ko    answered with a 2xx, or not (connection errors included)
#   ko_get ko_post    the failed ones by method
#   errors            connection errors and timeouts (status 0)
#   rps               requests over the time from the first start to the last end
#   p50_ms p95_ms p99_ms mean_ms max_ms   latency, nearest-rank percentiles
# Latencies and rps are empty (null in the results) when no request started in the window.

REQUEST_STATS_FIELDS="requests ok ko ko_get ko_post errors rps p50_ms p95_ms p99_ms mean_ms max_ms"

request_stats() {
  local file=$1 from=${2:-0} to=${3:-9999999999999}
  shift $(($# < 3 ? $# : 3))
  local fields=${*:-$REQUEST_STATS_FIELDS}
  awk -v from="$from" -v to="$to" '$1 >= from && $1 <= to { print $2 - $1, $1, $2, $3, $5 }' "$file" | sort -n -k1,1 |
    awk -v fields="$fields" '
      function rank(p,  i) { i = int(p / 100 * n); if (i < p / 100 * n) i++; return n ? ms[i < 1 ? 1 : i] : "" }
      { n++; ms[n] = $1; sum += $1
        if (n == 1 || $2 < first) first = $2
        if ($3 > last) last = $3
        if ($5 >= 200 && $5 < 300) ok++
        else { ko++; if ($4 == "POST") ko_post++; else ko_get++; if ($5 == 0) errors++ } }
      END {
        v["requests"] = n + 0; v["ok"] = ok + 0; v["ko"] = ko + 0; v["ko_get"] = ko_get + 0; v["ko_post"] = ko_post + 0
        v["errors"] = errors + 0
        v["rps"] = last > first ? sprintf("%.1f", n * 1000 / (last - first)) : ""
        v["p50_ms"] = rank(50); v["p95_ms"] = rank(95); v["p99_ms"] = rank(99)
        v["mean_ms"] = n ? sprintf("%.2f", sum / n) : ""; v["max_ms"] = n ? ms[n] : ""
        k = split(fields, wanted, " ")
        for (i = 1; i <= k; i++) {
          if (!(wanted[i] in v)) { print "request_stats: no field " wanted[i] > "/dev/stderr"; exit 2 }
          printf "%s%s", v[wanted[i]], i < k ? "\t" : "\n"
        }
      }'
}
