# bench/gatling's results: the manifest of the run (runs.jsonl: what ran, written by name through
# bench/lib/rows.sh), and the report bench/report makes of it with Gatling's own figures beside the 2015
# article's. Sourced by run.sh.

# A run of a target: its label, Gatling's exit code (125: not run), the folder its results went to
# (relative to the run's directory) and why it left none when the script knows better than the code.
MANIFEST_FIELDS=(target:text label:text exit_code folder:text note:text)

# record_run TARGET EXIT_CODE FOLDER [NOTE]
record_run() {
  row_new
  row_set target "$1" label "${LABEL[$1]}" exit_code "$2" folder "$3" note "${4:-}"
  row_write
}

# write_report: the runs as rows (Gatling's js/global_stats.json and simulation.log), then results.json,
# report.md and report.html through the report module, with the 2015 article's figures as rows of their own.
write_report() {
  local versions gatling_version t bin params
  report_tool gatling-rows --manifest "$out/runs.jsonl" --scenario "$profile" --out "$out/rows.tsv" || return 1
  # What ran, as each program says it: the JDK, Gatling (its simulation.log's RUN record), the peers.
  versions=(--version java="$(version_of java "$java17")")
  gatling_version=$(awk -F'\t' '$1 == "RUN" { print $6; exit }' "$out"/gatling/*/*/simulation.log 2>/dev/null || true)
  [ -z "$gatling_version" ] || versions+=(--version gatling="$gatling_version")
  for t in "${targets[@]}"; do
    case $t in
      mule-*) versions+=(--version mule="3.6.0 CE") ;;
      nginx|haproxy) bin=$(command -v "$t" 2>/dev/null || echo "/usr/sbin/$t")
        [ ! -x "$bin" ] || versions+=(--version "$t=$(version_of "$t" "$bin")") ;;
    esac
  done
  params=(--param profile="$profile" --param users="$users" --param rps_cap="$rps" --param ramp_s="$ramp"
    --param hold_s="$hold" --param warmup_s="$warmup" --param stub_delay_ms="$stub_delay" --param stub_mode="${STUB_MODE:-async}"
    --param ceiling_rps="$ceiling")
  [ -z "$port_note" ] || params+=(--param ports="$port_note")
  echo
  bench_report gatling "$out" "$invocation" --rows "$out/rows.tsv" --rows "$here/reference-2015.tsv" \
    "${versions[@]}" "${params[@]}" || return 1
  awk '/^## Per target/ { table = 1 } /^## Beside/ { table = 0 } table && /^\|/' "$out/report.md"
  echo
  echo "report: $out/report.md"
  echo "        $out/report.html"
}
