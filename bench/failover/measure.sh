# What one failover run measured, from the load's request lines, the servers' logs and the proxy's own
# log: one row of failover.jsonl, written by name (bench/lib/rows.sh). Sourced by run.sh.

# The row's fields: request_stats' (bench/lib/request-stats.sh) over the whole run, then p99 while the
# server was down, the requests two servers saw (by method), when the proxy took the dead server out and
# when the restarted one got a request again (null when that never showed).
# shellcheck disable=SC2206 # REQUEST_STATS_FIELDS is a list of names, split on purpose
FAILOVER_FIELDS=(target:text scenario:text repetition $REQUEST_STATS_FIELDS p99_down_ms get_twice post_twice
  out_after_ms used_again_after_ms)

# Requests delivered more than once: ids of the run (run-*) that more than one server logged, or one
# server twice. Prints "GET POST".
delivered_twice() {   # DIR
  cat "$1"/server-[0-2].log | awk '$3 ~ /^run-/ { n[$3]++; method[$3] = $2 }
    END { for (id in n) if (n[id] > 1) twice[method[id]]++; print twice["GET"] + 0, twice["POST"] + 0 }'
}

# Milliseconds from the restart to the first request of the run the restarted server logged; empty
# when it got none.
used_again_after() {   # DIR RESTARTED_MS
  awk -v at="$2" '$3 ~ /^run-/ && $1 >= at && (best == "" || $1 - at < best) { best = $1 - at } END { print best }' \
    "$1/server-$victim.log"
}

# When the proxy's own log says it took the dead server out, epoch ms per line (as each logs it;
# nginx in whole seconds).
out_lines() {   # TARGET PROXY_DIR
  local port=${SERVER_PORTS[$victim]}
  case $1 in
    kodiak) grep -E "server 127\.0\.0\.1:$port (ejected|is DOWN)" "$2/logs/kodiak.log" | cut -d' ' -f1-2 ;;
    nginx) grep -E "upstream server temporarily disabled.*127\.0\.0\.1:$port" "$2/logs/error.log" | cut -d' ' -f1-2 ;;
    haproxy) grep "Server be/s$((victim + 1)) is DOWN" "$2/logs/console.log" | awk '{ print $2 }' ;;
  esac 2>/dev/null | date -f - +%s%3N || true
}

# Milliseconds from the kill to the first of those lines; empty when the proxy logged none. A
# nginx line in the kill's own second counts as at the kill.
out_after() {   # TARGET PROXY_DIR KILLED_MS
  local slack=0
  [ "$1" = nginx ] && slack=1000
  out_lines "$1" "$2" | awk -v killed="$3" -v slack="$slack" \
    '$1 + slack >= killed { d = $1 > killed ? $1 - killed : 0; if (best == "" || d < best) best = d } END { print best }'
}

# record_run TARGET ROUND DIR KILLED_MS RESTARTED_MS: the run's row (DIR: the round and target's directory,
# its proxy's service in DIR/proxy).
record_run() {
  local t=$1 round=$2 dir=$3 killed=$4 restarted=$5 twice
  read -r -a twice <<<"$(delivered_twice "$dir")"
  row_new
  row_set target "$t" scenario failover repetition "$round"
  row_set_request_stats "$dir/requests.tsv" 0 9999999999999
  row_set p99_down_ms "$(request_stats "$dir/requests.tsv" "$killed" "$((restarted - 1))" p99_ms)"
  row_set get_twice "${twice[0]}" post_twice "${twice[1]}" \
    out_after_ms "$(out_after "$t" "$dir/proxy" "$killed")" used_again_after_ms "$(used_again_after "$dir" "$restarted")"
  row_write
}
