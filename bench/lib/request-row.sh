# FailoverLoad's request lines added up (bench/lib/request-stats.sh) straight into the row being built
# (bench/lib/rows.sh), field by field, for the benches that write their rows by name. Sourced after
# common.sh.
#
#   row_set_request_stats FILE FROM_MS TO_MS [FIELD...]
#                          request_stats FILE FROM_MS TO_MS FIELD... set as the row's fields of those
#                          names (default: every one of REQUEST_STATS_FIELDS)

row_set_request_stats() {
  local file=$1 from=$2 to=$3 i fields=() values=()
  shift 3
  if [ $# -gt 0 ]; then fields=("$@"); else read -r -a fields <<<"$REQUEST_STATS_FIELDS"; fi
  # One value a line: read with IFS=tab, two tabs in a row (an empty figure) would close up into one.
  mapfile -t values < <(request_stats "$file" "$from" "$to" "${fields[@]}" | tr '\t' '\n')
  [ ${#values[@]} = ${#fields[@]} ] || { echo "request_stats gave ${#values[@]} values for ${#fields[@]} fields" >&2; return 1; }
  for i in "${!fields[@]}"; do row_set "${fields[i]}" "${values[i]}" || return 1; done
}
