# bench/h2's measurements: h2load runs (bounded, their own CPU kept), what they printed, the gRPC checks
# through a target, the preflight, and one recorded run's row of runs.jsonl, written by name
# (bench/lib/rows.sh). Sourced by run.sh.

# A recorded run's fields. mode is the clients' scheme (http: h2c, https: h2 over TLS); backend what the
# proxies forward to (http1, h2c or grpc). no_message (--grpc): 2xx responses without their 105-byte
# message, from h2load's data bytes; grpc_check: the calls after the run (ok, FAIL, or - without --grpc).
# The ticks are the proxy's (cpu_ticks), the backend's, h2load's and the machine's over the run.
# requests (done), ok (2xx), ko (failed + errored + non-2xx + no_message), rps, mean_ms are results.json's
# common fields; h2load prints no percentiles (p50_ms, p95_ms, p99_ms: null). scenario names the cell.
H2_FIELDS=(mode:text scenario:text size connections streams target:text repetition position seconds requests ok ko rps
  p50_ms p95_ms p99_ms mean_ms failed errored timeout non_2xx cpu_ticks hz cpu_us_per_req h2load_rc note:text backend_ticks h2load_ticks machine_busy_ticks
  machine_total_ticks other_cpu_pct backend:text no_message grpc_check:text)

# What h2load asks, per mode: GET /SIZE, or with --grpc the unary call (POST of the message file).
set_load_args() {
  load_args=()
  [ "$mode" != grpc ] || load_args=(-d "$grpc_message" -H 'content-type: application/grpc' -H 'te: trailers')
}
# A cell as the results name it: "100 B, -c 10 -m 100".
cell_name() { echo "$1 B, -c $2 -m $3"; }

# target_url TARGET SIZE
target_url() {
  local s=$scheme
  [ "$1" = direct ] && s=http
  if [ "$mode" = grpc ]; then echo "$s://127.0.0.1:${PORT[$1]}$GRPC_PATH"; else echo "$s://127.0.0.1:${PORT[$1]}/$2"; fi
}

# run_h2load TARGET SIZE CONNS STREAMS SECONDS OUTPUT: bounded (killed 30 s past its duration), h2load's
# own CPU ticks in OUTPUT.cpu.
run_h2load() {
  local url
  url=$(target_url "$1" "$2")
  bounded_run $(($5 + 30)) "$6" "$6.cpu" h2load -t 1 -c "$3" -m "$4" -D "$5" ${load_args[@]+"${load_args[@]}"} "$url"
}

# "reqps 2xx failed errored timeout non2xx data succeeded done mean_ms" from an h2load output ("-" for
# what it did not print); data: the response bodies' bytes (h2load's "traffic: ... (N) data"); succeeded:
# the requests done with a 2xx (the 2xx count also has the responses whose heads came in before -D ended,
# not their ends); done: the requests that ended; mean_ms: "time for request"'s mean, in ms.
parse_h2load() {
  awk '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /[0-9]s$/) return v * 1000; return "" }
    function shown(v) { return v == "" ? "-" : v }
    /^finished in/ { for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^req\/s/) rps = $i; sub(/,$/, "", rps) }
    /^traffic:/ { for (i = 2; i <= NF; i++) if ($(i + 1) ~ /^data/) { data = $i; gsub(/[()]/, "", data) } }
    /^requests:/ { for (i = 2; i <= NF; i++) { v = $i + 0; w = $(i + 1); sub(/,$/, "", w)
                     if (w == "failed") failed = v; else if (w == "errored") errored = v; else if (w == "timeout") timeout = v
                     else if (w == "succeeded") succeeded = v; else if (w == "done") done = v } }
    /^status codes:/ { for (i = 3; i <= NF; i++) { v = $i + 0; w = $(i + 1); sub(/,$/, "", w)
                     if (w == "2xx") ok = v; else if (w ~ /^[345]xx$/) non += v } }
    /^time for request:/ { mean = ms($6) }
    END { print shown(rps), shown(ok), shown(failed), shown(errored), shown(timeout), shown(non), shown(data),
            shown(succeeded), shown(done), shown(mean) }' "$1"
}

# grpc_check TARGET NAME: GRPC_CHECK_CALLS unary calls through TARGET at once (GrpcEcho client, its own
# JVM), each a different message; prints GrpcEcho's one-line verdict, returns non-zero on any failure.
grpc_check() {
  local t=$1 file=$grpc_dir/checks/$2.txt tls_arg=() rc=0
  $tls && [ "$t" != direct ] && tls_arg=(tls)
  timeout -k 5 60 "$java17" -Xmx256m -XX:TieredStopAtLevel=1 "-Dlogback.configurationFile=$root/bench/throughput/logback.xml" \
    -cp "$grpc_cp" GrpcEcho client 127.0.0.1 "${PORT[$t]}" "$GRPC_CHECK_CALLS" ${tls_arg[@]+"${tls_arg[@]}"} >"$file" 2>&1 </dev/null || rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "GrpcEcho client killed after 60 s"
  else grep -v '^$' "$file" | tail -n 1 | tr '\t' ' '; fi
  return "$rc"
}

# measure TARGET SIZE CONNS STREAMS ROUND POSITION: one recorded run, one row of runs.jsonl.
measure() {
  local t=$1 size=$2 c=$3 m=$4 round=$5 pos=$6 pids=() before after rc=0 note="" f
  local name="r$round-$t-$size-c$c-m$m"
  mapfile -t pids < <(target_pids "$t" || true)
  [ ${#pids[@]} -gt 0 ] || note="$t is not running"
  local bpids=() m0 m1 b0 b1
  # direct: the backend is the target itself, charged once.
  [ "$t" = direct ] || mapfile -t bpids < <(target_pids backend || true)
  b0=$(cpu_ticks ${bpids[@]+"${bpids[@]}"})
  read -r -a m0 <<<"$(machine_ticks)"
  before=$(cpu_ticks ${pids[@]+"${pids[@]}"})
  run_h2load "$t" "$size" "$c" "$m" "$seconds" "$out/h2load/$name.txt" || rc=$?
  # The alive processes only: a worker that exited takes its ticks with it (noted).
  local alive=()
  for p in ${pids[@]+"${pids[@]}"}; do [ -r "/proc/$p/stat" ] && alive+=("$p"); done
  [ ${#alive[@]} = ${#pids[@]} ] || note="${note:+$note; }$((${#pids[@]} - ${#alive[@]})) of its processes exited during the run"
  after=$(cpu_ticks ${alive[@]+"${alive[@]}"})
  read -r -a m1 <<<"$(machine_ticks)"
  b1=$(cpu_ticks ${bpids[@]+"${bpids[@]}"})
  local h2ticks
  h2ticks=$(cat "$out/h2load/$name.txt.cpu" 2>/dev/null || echo 0)
  rm -f "$out/h2load/$name.txt.cpu"
  # The machine's busy time that none of the run's processes (proxy, backend, h2load) account for, in %.
  local other
  other=$(awk -v busy="$((m1[0] - m0[0]))" -v total="$((m1[1] - m0[1]))" -v mine="$((after - before + b1 - b0 + h2ticks))" \
    'BEGIN { o = total > 0 ? 100 * (busy - mine) / total : 0; printf "%.0f", (o < 0 ? 0 : o) }')
  [ "$rc" = 0 ] || note="${note:+$note; }h2load exit $rc$([ "$rc" = 124 ] && echo ' (killed: it did not finish within its duration + 30 s)')"
  read -r -a f <<<"$(parse_h2load "$out/h2load/$name.txt")"
  [ "${f[0]}" != - ] || note="${note:+$note; }no h2load result: $(grep -v '^$' "$out/h2load/$name.txt" | tail -n 1 | tr '\t' ' ')"
  local ticks=$((after - before)) cpu=-
  [ "${f[1]}" != - ] && ((f[1] > 0)) && cpu=$(awk -v t="$ticks" -v hz="$hz" -v n="${f[1]}" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')
  # --grpc: h2load reads no trailers, but every good answer carries the 105-byte echo; a 2xx without it
  # (a trailers-only answer: grpc-status not 0) shows as data bytes short of 105 per request that
  # succeeded (done with a 2xx). The bytes also count the bodies of calls still open when -D ended, so
  # up to that many (-c × -m at most) such answers could hide; the real calls after the run are the check.
  local no_message=- check=- check_line
  if [ "$mode" = grpc ]; then
    if [ "${f[7]}" != - ] && [ "${f[6]}" != - ]; then
      no_message=$((f[7] - f[6] / 105))
      ((no_message >= 0)) || no_message=0
      ((no_message == 0)) || note="${note:+$note; }$no_message 2xx response(s) without their message (grpc-status not 0)"
    fi
    if check_line=$(grpc_check "$t" "$name"); then check=ok
    else check=FAIL note="${note:+$note; }gRPC check after the run: $check_line"; fi
  fi
  # The errors column of results.md, as results.json's ko: null when h2load gave no result.
  local ko=-
  [ "${f[0]}" = - ] || ko=$(awk -v a="${f[2]}" -v b="${f[3]}" -v c="${f[5]}" -v d="$no_message" \
    'function n(x) { return x == "-" ? 0 : x } BEGIN { print n(a) + n(b) + n(c) + n(d) }')
  row_new
  row_set mode "$scheme" scenario "$(cell_name "$size" "$c" "$m")" size "$size" connections "$c" streams "$m" target "$t" \
    repetition "$round" position "$pos" seconds "$seconds" requests "${f[8]}" ok "${f[1]}" ko "$ko" rps "${f[0]}" \
    p50_ms "" p95_ms "" p99_ms "" mean_ms "${f[9]}" failed "${f[2]}" errored "${f[3]}" timeout "${f[4]}" \
    non_2xx "${f[5]}" cpu_ticks "$ticks" hz "$hz" cpu_us_per_req "$cpu" h2load_rc "$rc" note "$note" \
    backend_ticks "$((b1 - b0))" h2load_ticks "$h2ticks" machine_busy_ticks "$((m1[0] - m0[0]))" \
    machine_total_ticks "$((m1[1] - m0[1]))" other_cpu_pct "$other" backend "$mode" no_message "$no_message" grpc_check "$check"
  row_write
  log "  $(printf '%-8s %5s B c%-3s m%-3s round %s: %9s req/s  %6s µs CPU/req  errors %s+%s+%s%s  other-cpu %s%%' "$t" "$size" "$c" "$m" "$round" \
    "${f[0]}" "$cpu" "${f[2]}" "${f[3]}" "${f[5]}" "$([ "$mode" = grpc ] && echo "+$no_message  check $check")" "$other")${note:+  ($note)}"
}

# ---- preflight: every target answers each body over HTTP/2, and many streams on one connection ---------
# curl checks one request (protocol, status, body size); h2load then 20 streams on one connection, 10 at
# a time (curl 7.88 cannot reuse an h2c prior-knowledge connection for a second URL). --grpc: the body is
# the 105-byte echo of the message POSTed, and GrpcEcho client's calls must all succeed.
preflight_notes=()
preflight() {
  local t size line want url proto app pre sizes=(100 10240) req=() check_line
  [ "$mode" = grpc ] && sizes=(100) req=(--data-binary "@$grpc_message" -H 'content-type: application/grpc' -H 'te: trailers')
  for t in "${targets[@]}"; do
    proto=(--http2-prior-knowledge) app=h2c
    $tls && [ "$t" != direct ] && proto=(--http2 -k) app=h2
    for size in "${sizes[@]}"; do
      url=$(target_url "$t" "$size")
      line=$(curl -sS "${proto[@]}" ${req[@]+"${req[@]}"} --max-time 10 -o /dev/null -w '%{http_version}:%{http_code}:%{size_download}' "$url" 2>&1) || true
      want="2:200:$size"
      [ "$mode" = grpc ] && want="2:200:$((size + 5))"
      if [ "$line" != "$want" ]; then
        log "PREFLIGHT $t $size B: curl expected '$want' (HTTP version:status:bytes), got '$line'"
        preflight_notes+=("$t $size B: curl got '$line', expected '$want'")
      fi
      pre=$out/h2load/preflight-$t-$size.txt
      timeout 30 h2load -n 20 -c 1 -m 10 ${load_args[@]+"${load_args[@]}"} "$url" >"$pre" 2>&1 </dev/null || true
      line="$(grep -m1 '^Application protocol:' "$pre" || echo 'no protocol'); $(grep -m1 '^requests:' "$pre" || echo 'no requests line'); $(grep -m1 '^status codes:' "$pre" || echo 'no status line')"
      if ! grep -q "^Application protocol: $app\$" "$pre" || ! grep -q ' 20 succeeded, 0 failed, 0 errored' "$pre" || ! grep -q '^status codes: 20 2xx' "$pre" ||
         { [ "$mode" = grpc ] && ! grep -q "^traffic: .* ($((20 * (size + 5)))) data" "$pre"; }; then
        [ "$mode" = grpc ] && line+="; $(grep -m1 '^traffic:' "$pre" | sed 's/.*, //' || echo 'no traffic line') (want $((20 * (size + 5))))"
        log "PREFLIGHT $t $size B: h2load -n 20 -c 1 -m 10: $line"
        preflight_notes+=("$t $size B: h2load -n 20 -c 1 -m 10: $line")
      fi
    done
    if [ "$mode" = grpc ]; then
      if ! check_line=$(grpc_check "$t" "preflight-$t"); then
        log "PREFLIGHT $t: GrpcEcho client: $check_line"
        preflight_notes+=("$t: GrpcEcho client ($GRPC_CHECK_CALLS calls): $check_line")
      fi
    fi
  done
  if [ ${#preflight_notes[@]} -eq 0 ]; then
    if [ "$mode" = grpc ]; then
      log "preflight: every target echoes the message with 200 over h2c/h2, 20 streams on one connection, and $GRPC_CHECK_CALLS gRPC calls succeed"
    else
      log "preflight: every target answers 200 with the body's size over $app, and 20 streams on one connection"
    fi
  fi
  return 0
}
