# bench/throughput's results: the fields of a run's row (runs.jsonl, written by name through
# bench/lib/rows.sh), the run's description, and the report bench/report makes of them with
# bench/throughput/report.json. Sourced by run.sh.

# What a recorded run counted, as counted (ticks, µs, kB, bytes, connections); report.json's formulas derive
# the figures (req/s, CPU µs and bytes allocated per request, ms, MB, ...). proxied (0 for direct),
# upstream_delay_ms (the stub's 500 ms, 0 for the static backend) and accounted_ticks (wrk's, the proxy's,
# the upstream's and a trace collector's ticks together) are there for those formulas. family is "kodiak"
# for Kodiak and its tracing variants, which the tracing tables compare; jvm is 1 for the targets on a JVM.
RUN_FIELDS=(phase:text target:text family:text jvm scenario:text size:text payload connections repetition position
  planned_s proxied upstream_delay_ms requests duration_us bytes err_connect err_read err_write err_status err_timeout
  mean_us p50_us p75_us p90_us p95_us p99_us max_us
  proxy_user_ticks proxy_sys_ticks upstream_ticks wrk_ticks collector_ticks accounted_ticks machine_busy_ticks
  machine_total_ticks wall_us rss_kb fds upstream_connects machine_accepts proxy_jit_ticks proxy_gc_ticks live_heap_kb
  alloc_bytes alloc_threads trace_exports trace_bytes hz note:text)

# write_report DIR COMMAND [bench_report options...]: DIR/results.json, report.md and report.html from
# DIR/runs.jsonl (needs bench_begin first).
write_report() {
  local dir=$1 command=$2 rows=$1/logs/report-rows.jsonl notes order runs=$1/runs.jsonl
  shift 2
  mkdir -p "$dir/logs"
  # A run from before runs.jsonl (runs.tsv, its header naming the fields) is read by those names.
  if [ ! -f "$runs" ] && [ -f "$dir/runs.tsv" ]; then
    runs=$dir/logs/runs-from-tsv.jsonl
    tsv_as_jsonl "$dir/runs.tsv" >"$runs" || return 1
  fi
  # Tables and charts list the targets in the order the rows first name them, and the runs rotate: the
  # rows go in ALL_TARGETS' order, each target's runs kept in order.
  order=$(printf '%s\n' "${ALL_TARGETS[@]}" | jq -R . | jq -sc .)
  jq -c --argjson order "$order" -s \
    'to_entries | sort_by([(.value.target as $t | $order | index($t)) // 999, .key]) | .[].value' \
    "$runs" >"$rows" || return 1
  # What went wrong in a run (a service that exited, wrk's exit code, no result) is its note.
  notes=$(jq -r -s '[.[] | select(.note != "") | "\(.scenario), \(.target), repetition \(.repetition): \(.note)"] | join("; ")' "$rows")
  [ -z "$notes" ] || set -- "$@" --param "notes from the runs=$notes"
  # A remade report keeps the run's own description (command, time, machine, versions).
  [ -f "$dir/results.json" ] && set -- "$@" --meta-from "$dir/results.json"
  # report.json names every section and check a full run can fill; the page shows those this run filled.
  bench_report throughput "$dir" "$command" --rows "$rows" "$@" >/dev/null
}

# tsv_as_jsonl FILE: a TSV whose first line names the fields as JSON lines, typed as bench/report types a
# TSV (text fields stay text; "", "-" and "null" are null; numbers are numbers).
tsv_as_jsonl() {
  jq -R -s -c '
    split("\n") | map(select(length > 0) | split("\t")) | .[0] as $names | .[1:][]
    | [$names, .] | transpose | map({key: .[0], value: (.[1] as $v
        | if (.[0] | IN("phase", "target", "scenario", "size", "note")) then $v
          elif ($v == "" or $v == "-" or $v == "null") then null
          elif ($v | test("^-?[0-9]+(\\.[0-9]+)?$")) then ($v | tonumber)
          else $v end)}) | from_entries' "$1"
}

# The checks against the issues' targets as report.md states them, and where the report is.
print_outcome() {
  echo
  awk '/^## / { shown = /Verdict|Against the targets/ } shown' "$1/report.md"
  echo "report: $1/report.md"
  echo "        $1/report.html"
}

joined() { local all; printf -v all '%s; ' "$@"; echo "${all%; }"; }

# The run's description beside the machine facts bench/report gathers itself (cores, memory, kernel,
# load average before and during, start and end): sets the array facts.
describe_run() {
  local commit elapsed=$1 matrix_note="" scale_note="" quiet_note_meta="" nginx
  commit=$(git -C "$kodiak_home" rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$kodiak_home" diff --quiet HEAD -- src pom.xml 2>/dev/null || commit="$commit (with uncommitted changes in src/ or pom.xml)"
  $matrix && matrix_note="; matrix runs of ${duration}s after a ${warmup}s warm-up per target and a ${cell_warmup}s unrecorded run per target and cell"
  $scale && scale_note="; scale runs of ${scale_duration}s on fresh proxies and one stub per target (500 ms, async), after a ${scale_warmup}s warm-up per target"
  ((quiet_wait > 0)) && quiet_note_meta="; waiting up to ${quiet_wait}s before each run for a quiet machine"
  facts=(
    --param "profile=$profile; ${reps} repetition(s) per target and cell${matrix_note}${scale_note}; measured in $((elapsed / 60)) min $((elapsed % 60)) s"
    --param "load=wrk -t2, keep-alive, POST bodies of the payload size (the backend answers the same size), --timeout 10s; targets alternate within each cell${quiet_note_meta}"
    --param "open files per process=$(ulimit -n)"
    --version "wrk=$(version_of wrk | awk '{print $2}')"
    --version "java=$(version_of java "$java17")"
  )
  nginx=$(command -v nginx || echo /usr/sbin/nginx)
  [ -x "$nginx" ] && facts+=(--version "nginx=$(version_of nginx "$nginx")")
  in_targets haproxy && facts+=(--version "haproxy=$(version_of haproxy "$(command -v haproxy || echo /usr/sbin/haproxy)" | awk '{print "HAProxy " $3}')")
  if in_targets kodiak || in_targets kodiak-trace1 || in_targets kodiak-trace100; then
    facts+=(--param "Kodiak=commit $commit; $kodiak_jar_info; launched with $kodiak_launch${kodiak_build_note:+; $kodiak_build_note}"
            --param "Kodiak JAVA_OPTS=$(kodiak_java_opts)")
    [ ${#kodiak_confs[@]} -eq 0 ] || facts+=(--param "Kodiak extra config=${kodiak_confs[*]}")
    $as_shipped && facts+=(--param "as shipped=Kodiak with conf/logback.xml (access log on, buffered) and its admin listener and metrics on; nginx with access_log on (unbuffered, its default)")
    [ -z "$jit_note" ] || facts+=(--param "Kodiak JIT warm-up=$jit_note")
    $jfr && facts+=(--param "JFR=Kodiak recorded with JFR (profile settings) during the recorded runs")
  fi
  if in_targets kodiak-trace1 || in_targets kodiak-trace100; then
    facts+=(--param "tracing=kodiak-trace1 and kodiak-trace100: Kodiak with proxy.tracing on, sampler 0.01 and 1.0, exporting over OTLP/HTTP to a collector of its own (bench/lib/otlp-sink.py) that counts and drops")
    local t received
    for t in kodiak-trace1 kodiak-trace100; do
      in_targets "$t" || continue
      # Still running: the collectors stop with everything else when the run ends.
      read -r -a received <<<"$(collector_counts "$t")"
      facts+=(--param "collector of $t=${received[0]} exports received, ${received[1]} bytes, over the whole run")
    done
  fi
  $alloc && facts+=(--param "allocation=JVM targets: JFR's per-thread allocation counters (bench/lib/alloc.jfc) read when each recorded run starts and ends, summed over the JVM's threads")
  [ ${#preflight_notes[@]} -eq 0 ] || facts+=(--param "preflight failures=$(joined "${preflight_notes[@]}")")
}
