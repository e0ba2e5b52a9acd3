# A bench's measurements written by name: one JSON object per line (FILE.jsonl), which bench/report
# reads field by field (JsonRows). A row is assembled with row_set and checked when it is written:
# every declared field set, none undeclared, numbers where numbers are declared. A value cannot land
# in its neighbour's column, and adding a field is one name in one list. Sourced.
#
#   rows_open FILE FIELD...   the fields every row of FILE has; FIELD is NAME (a number, or null when
#                             given "" or "-") or NAME:text (a string, escaped as JSON wants it)
#   row_new                   start a row (forget the previous one's values)
#   row_set NAME VALUE...     set fields by name, in pairs
#   row_write                 append the row to FILE; returns 1, naming the field, when it is incomplete,
#                             has a field rows_open did not declare, or a number field holds text

declare -A _row_values=() _row_kind=()
_row_file="" _row_order=()

rows_open() {
  _row_file=$1
  shift
  _row_order=() _row_kind=()
  local spec
  for spec in "$@"; do
    _row_order+=("${spec%%:*}")
    if [[ $spec == *:text ]]; then _row_kind[${spec%%:*}]=text; else _row_kind[${spec%%:*}]=number; fi
  done
  mkdir -p "$(dirname "$_row_file")"
  touch "$_row_file"
}

row_new() { _row_values=(); }

row_set() {
  while [ $# -ge 2 ]; do
    [ -n "${_row_kind[$1]:-}" ] || { echo "rows: no field '$1' in ${_row_file##*/}" >&2; return 1; }
    _row_values[$1]=$2
    shift 2
  done
}

# A string as a JSON string: backslash, quote and control characters escaped.
json_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/\\t}
  s=${s//$'\n'/\\n}
  s=${s//$'\r'/\\r}
  s=$(printf '%s' "$s" | tr -d '\000-\010\013\014\016-\037')
  printf '"%s"' "$s"
}

row_write() {
  local name value line="" sep=""
  for name in "${_row_order[@]}"; do
    [ -n "${_row_values[$name]+set}" ] || { echo "rows: field '$name' not set in a row of ${_row_file##*/}" >&2; return 1; }
    value=${_row_values[$name]}
    if [ "${_row_kind[$name]}" = text ]; then
      value=$(json_string "$value")
    elif [ -z "$value" ] || [ "$value" = - ]; then
      value=null
    elif ! [[ $value =~ ^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; then
      echo "rows: field '$name' is a number, got '$value'" >&2
      return 1
    fi
    line+="$sep\"$name\":$value"
    sep=,
  done
  printf '{%s}\n' "$line" >>"$_row_file"
}
