# What one reload run measured: its memory before and after the reloads, and two rows of reload.jsonl
# (the baseline, the reloads), written by name (bench/lib/rows.sh). Sourced by run.sh.

# request_stats' fields (bench/lib/request-stats.sh), then the reloads' own: how many, how many commands
# failed, a command's median time, and the proxy's memory before and after (null in the baseline row).
# shellcheck disable=SC2206 # REQUEST_STATS_FIELDS is a list of names, split on purpose
RELOAD_FIELDS=(target:text scenario:text repetition $REQUEST_STATS_FIELDS reloads failed_reloads reload_command_ms
  rss_before_kib rss_after_kib heap_before_kib heap_after_kib)

# Resident memory of every process in the proxy's session (nginx's and HAProxy's workers, old
# ones still finishing included), in KiB.
session_rss() {   # PID
  ps -o rss= -s "$1" | awk '{ s += $1 } END { print s + 0 }'
}

# Kodiak's heap in use right after a full collection, in KiB (nothing for the others: null in the results).
heap_after_gc() {   # TARGET PID
  [ "$1" = kodiak ] || return 0
  heap_after_gc_kib "$(dirname "$java17")/jcmd" "$2"
}

median_of() {   # FILE of numbers, one a line
  sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR) print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# record_run TARGET ROUND DIR FIRST_RELOAD_MS LAST_RELOAD_MS: the baseline's row; then the reloads' row:
# its failures over the whole run (a request that meets a connection an old worker closed fails whenever
# it comes), its latency over the requests that started between the first reload and a second after the
# last. Reads failed_reloads, rss_before/after and heap_before/after, which the run set.
record_run() {
  local t=$1 round=$2 dir=$3 first=$4 last=$5
  row_new
  row_set target "$t" scenario baseline repetition "$round" reloads "" failed_reloads "" reload_command_ms "" \
    rss_before_kib "" rss_after_kib "" heap_before_kib "" heap_after_kib ""
  row_set_request_stats "$dir/baseline.tsv" 0 9999999999999
  row_write
  row_new
  row_set target "$t" scenario reloads repetition "$round" reloads "$reloads" failed_reloads "$failed_reloads" \
    reload_command_ms "$(median_of "$dir/reload-times")" rss_before_kib "$rss_before" rss_after_kib "$rss_after" \
    heap_before_kib "$heap_before" heap_after_kib "$heap_after"
  row_set_request_stats "$dir/requests.tsv" 0 9999999999999 requests ok ko ko_get ko_post errors rps
  row_set_request_stats "$dir/requests.tsv" "$first" "$((last + 1000))" p50_ms p95_ms p99_ms mean_ms max_ms
  row_write
}
