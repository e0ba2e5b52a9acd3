# bench/throughput's runs: warm-ups, Kodiak's JIT warm-up, the preflight, and measure, which makes one
# recorded run and writes its row by name (bench/lib/rows.sh; the fields are RUN_FIELDS in run.sh).
# Sourced by run.sh.

# The path every scale request uses; the proxies forward paths unchanged, so it reaches the stub's servlet.
STUB_PATH=/ProxiedServiceStub/ServiceStubServlet
SCALE_PAYLOAD=512

# How the tables name a payload: 512 → "512 B", 10240 → "10 KB".
size_label() { if (($1 >= 1024 && $1 % 1024 == 0)); then echo "$(($1 / 1024)) KB"; else echo "$1 B"; fi; }

# An unrecorded run (warm-ups).
warm() {
  local target=$1 seconds=$2 conns=$3 payload=$4 path=${5:-} name=$phase-$1-$4-$3-warm
  wrk_start "$out/logs/wrk/$name.log" "$out/logs/wrk/$name.cpu" "$seconds" "$conns" \
    "http://127.0.0.1:$(target_port "$target")" "$here/wrk.lua" "$payload" ${path:+"$path"}
  wrk_wait || true
}

# Keeps warming each Kodiak (plain, and with tracing) up, in 3 s slices that cycle through the payloads and
# connection counts, until its compiler threads take under 5 % of its CPU in a slice, or jit_max seconds
# have passed: a JVM still compiling is paying a start-up cost that a long-running proxy does not.
warm_jit() {
  local t
  for t in "${targets[@]}"; do is_kodiak "$t" && warm_jit_of "$t"; done
  return 0
}

warm_jit_of() {
  local target=$1 pid extra=0 i=0 size conns share=100 a b ta tb used
  local -a levels=(80 "${concurrency[-1]}")
  ((jit_max > 0)) || return 0
  [ "$phase" = scale ] && levels=("${scale_conns[0]}")
  pid=$(target_pid "$target-$phase") || return 0
  while ((extra < jit_max)); do
    size=${payloads[i % ${#payloads[@]}]} conns=${levels[i % ${#levels[@]}]}
    read -r -a a <<<"$(jvm_split "$pid")"
    read -r -a ta <<<"$(user_sys_ticks "$pid")"
    if [ "$phase" = scale ]; then warm "$target" 3 "$conns" "$SCALE_PAYLOAD" "$STUB_PATH"; else warm "$target" 3 "$conns" "$size"; fi
    read -r -a b <<<"$(jvm_split "$pid")"
    read -r -a tb <<<"$(user_sys_ticks "$pid")"
    extra=$((extra + 3)) i=$((i + 1))
    used=$((tb[0] + tb[1] - ta[0] - ta[1]))
    share=$((100 * (b[0] - a[0]) / (used > 0 ? used : 1)))
    ((share < 0)) && share=0
    ((share < 5)) && break
  done
  jit_note="${jit_note:+$jit_note, }$phase, $target: compiler threads ${share}% of its CPU in the last warm-up slice after ${extra}s of JIT warm-up"
  progress "$target JIT: compiler threads at ${share}% of its CPU after ${extra}s of extra warm-up"
}

# With --wait-quiet: waits until the machine, with this run's services idle, is at most 25 % busy (others'
# builds and benchmarks), for up to quiet_wait seconds. Sets quiet_note when it gave up.
wait_quiet() {
  quiet_note=""
  ((quiet_wait > 0)) || return 0
  local deadline=$((SECONDS + quiet_wait)) busy a b waited=false
  while :; do
    read -r -a a <<<"$(machine_ticks)"
    sleep 1
    read -r -a b <<<"$(machine_ticks)"
    busy=$((100 * (b[0] - a[0]) / ((b[1] - a[1]) > 0 ? (b[1] - a[1]) : 1)))
    ((busy <= 25)) && { $waited && progress "  the machine is quiet enough (${busy}% busy)"; return 0; }
    if ((SECONDS >= deadline)); then
      quiet_note="machine ${busy}% busy before the run"
      progress "  the machine is still ${busy}% busy with other work after ${quiet_wait}s; measuring anyway"
      return 0
    fi
    $waited || progress "  waiting for the machine to calm down (${busy}% busy with other work)"
    waited=true
  done
}

# Connections the static backend has accepted so far (nginx stub_status), or "-" outside the matrix.
backend_accepts() {
  [ "$phase" = matrix ] || { echo -; return 0; }
  # Third line of stub_status: " accepts handled requests".
  curl -sS --max-time 2 "http://127.0.0.1:${PORT[backend]}/__bench_status" 2>/dev/null |
    awk 'NR == 3 { print $1; found = 1 } END { if (!found) print "-" }'
}

# What a JVM (PID) holds live, in kB: jcmd's class histogram, which takes a full collection first, so only
# what is reachable counts. "-" when jcmd cannot attach.
live_heap_kb() {
  { "$(dirname "$java17")/jcmd" "$1" GC.class_histogram 2>/dev/null || true; } \
    | awk '$1 == "Total" { print int($3 / 1024); found = 1 } END { if (!found) print "-" }'
}

# measure TARGET PAYLOAD CONNS REP POSITION SECONDS [PATH]: one recorded run, one row in runs.jsonl.
measure() {
  local target=$1 payload=$2 conns=$3 rep=$4 position=$5 seconds=$6 path=${7:-}
  local row_phase=$phase
  $heap_probe && row_phase=heap
  local name=$row_phase-$target-$payload-$conns-r$rep svc proxy_root="" upstream_root="" note=""
  local log=$out/logs/wrk/$name.log cpufile=$out/logs/wrk/$name.cpu jfr=$out/logs/alloc/$name.jfr
  local -a proxy_pids=() upstream_pids=() collector_pids=()
  svc=$(proxy_service "$target")
  if [ -n "$svc" ]; then
    proxy_root=$(target_pid "$svc") || note="$svc is not running"
    [ -n "$proxy_root" ] && mapfile -t proxy_pids < <(tree_pids "$proxy_root")
  fi
  upstream_root=$(target_pid "$(upstream_service "$target")") || note="${note:+$note; }upstream is not running"
  [ -n "$upstream_root" ] && mapfile -t upstream_pids < <(tree_pids "$upstream_root")
  local collector_root
  collector_root=$(target_pid "collector-$target") && collector_pids=("$collector_root")

  wait_quiet
  [ -z "$quiet_note" ] || note="${note:+$note; }$quiet_note"
  # JFR starts before the first CPU sample and stops after the last: jcmd's work stays out of the CPU figures.
  local allocating=false
  if $alloc && is_jvm_target "$target" && [ -n "$proxy_root" ]; then
    if alloc_window_start "$java17" "$proxy_root" "$jfr"; then allocating=true; else note="${note:+$note; }JFR did not start"; fi
  fi
  local -a p0 p1 u0 u1 c0 c1 m0 m1 jvm0=(- -) jvm1=(- -) k0 k1
  read -r -a k0 <<<"$(collector_counts "$target")"
  read -r -a p0 <<<"$(user_sys_ticks "${proxy_pids[@]+"${proxy_pids[@]}"}")"
  read -r -a u0 <<<"$(user_sys_ticks "${upstream_pids[@]+"${upstream_pids[@]}"}")"
  read -r -a c0 <<<"$(user_sys_ticks "${collector_pids[@]+"${collector_pids[@]}"}")"
  is_kodiak "$target" && [ -n "$proxy_root" ] && read -r -a jvm0 <<<"$(jvm_split "$proxy_root")"
  local accepts0 tcp0 t0
  accepts0=$(backend_accepts) tcp0=$(tcp_accepts)
  read -r -a m0 <<<"$(machine_ticks)"
  t0=${EPOCHREALTIME/./}
  wrk_start "$log" "$cpufile" "$seconds" "$conns" "http://127.0.0.1:$(target_port "$target")" "$here/wrk.lua" "$payload" ${path:+"$path"}
  # Resident memory: the largest of one-second samples while the connections are open (polled every 0.2 s,
  # so the window ends soon after wrk does); open files and the live heap: once, past 60 % of the run.
  local polls=0 half=$(((seconds * 6 / 10) * 5)) rss=0 fds=0 r live_heap=-
  while kill -0 "$WRK_JOB" 2>/dev/null; do
    sleep 0.2
    polls=$((polls + 1))
    ((${#proxy_pids[@]} > 0 && polls % 5 == 0)) || continue
    r=$(rss_kb "${proxy_pids[@]}")
    ((r > rss)) && rss=$r
    [ "$polls" = "$half" ] && fds=$(fd_count "${proxy_pids[@]}")
    [ "$polls" = "$half" ] && $heap_probe && live_heap=$(live_heap_kb "$proxy_root")
  done
  local wrk_rc=0 t1
  wrk_wait || wrk_rc=$?
  t1=${EPOCHREALTIME/./}
  # Let the proxy finish closing the connections wrk dropped: that work belongs to this run.
  sleep 0.3
  read -r -a p1 <<<"$(user_sys_ticks "${proxy_pids[@]+"${proxy_pids[@]}"}")"
  read -r -a u1 <<<"$(user_sys_ticks "${upstream_pids[@]+"${upstream_pids[@]}"}")"
  read -r -a c1 <<<"$(user_sys_ticks "${collector_pids[@]+"${collector_pids[@]}"}")"
  read -r -a m1 <<<"$(machine_ticks)"
  local tcp1 accepts1
  tcp1=$(tcp_accepts) accepts1=$(backend_accepts)
  is_kodiak "$target" && [ -n "$proxy_root" ] && read -r -a jvm1 <<<"$(jvm_split "$proxy_root")"
  read -r -a k1 <<<"$(collector_counts "$target")"
  local -a allocated=(- -)
  $allocating && read -r -a allocated <<<"$(alloc_window_end "$java17" "$proxy_root" "$jfr")"

  if [ ${#proxy_pids[@]} -gt 0 ]; then
    r=$(rss_kb "${proxy_pids[@]}")
    ((r > rss)) && rss=$r
    ((fds > 0)) || fds=$(fd_count "${proxy_pids[@]}")
  fi
  [ -z "$proxy_root" ] || kill -0 "$proxy_root" 2>/dev/null || note="${note:+$note; }$svc exited during the run"
  [ "$wrk_rc" = 0 ] || note="${note:+$note; }wrk exit $wrk_rc"
  local result kv wrk_ticks
  result=$(grep -m1 '^RESULT ' "$log" || true)
  [ -n "$result" ] || { note="${note:+$note; }no wrk result: $(tail -n 1 "$log")"; result="RESULT"; }
  wrk_ticks=$(cat "$cpufile" 2>/dev/null || echo 0)
  declare -A v=([requests]=0 [duration_us]=0 [bytes]=0 [connect]=0 [read]=0 [write]=0 [status]=0 [timeout]=0
                [mean_us]=- [p50_us]=- [p75_us]=- [p90_us]=- [p95_us]=- [p99_us]=- [max_us]=-)
  for kv in ${result#RESULT}; do v[${kv%%=*}]=${kv#*=}; done

  local proxied=1 delay_ms=0 scenario pu=- ps=- pt=0 ut ct
  [ "$target" = direct ] && proxied=0
  if $heap_probe; then delay_ms=500 scenario="live heap at $conns connections, 500 ms upstream"
  elif [ "$phase" = scale ]; then delay_ms=500 scenario="scale $conns connections, 500 ms upstream"
  else scenario="matrix $(size_label "$payload") × $conns"; fi
  [ ${#proxy_pids[@]} -eq 0 ] || { pu=$((p1[0] - p0[0])) ps=$((p1[1] - p0[1])); pt=$((pu + ps)); }
  ut=$((u1[0] + u1[1] - u0[0] - u0[1])) ct=$((c1[0] + c1[1] - c0[0] - c0[1]))
  row_new
  row_set phase "$row_phase" target "$target" family "$(is_kodiak "$target" && echo kodiak || echo "$target")" \
    jvm "$(is_jvm_target "$target" && echo 1 || echo 0)" \
    scenario "$scenario" size "$(size_label "$payload")" payload "$payload" connections "$conns" repetition "$rep" \
    position "$position" planned_s "$seconds" proxied "$proxied" upstream_delay_ms "$delay_ms" \
    requests "${v[requests]}" duration_us "${v[duration_us]}" bytes "${v[bytes]}" \
    err_connect "${v[connect]}" err_read "${v[read]}" err_write "${v[write]}" err_status "${v[status]}" err_timeout "${v[timeout]}" \
    mean_us "${v[mean_us]}" p50_us "${v[p50_us]}" p75_us "${v[p75_us]}" p90_us "${v[p90_us]}" p95_us "${v[p95_us]}" \
    p99_us "${v[p99_us]}" max_us "${v[max_us]}" \
    proxy_user_ticks "$pu" proxy_sys_ticks "$ps" upstream_ticks "$ut" wrk_ticks "$wrk_ticks" collector_ticks "$ct" \
    accounted_ticks $((pt + ut + ct + wrk_ticks)) machine_busy_ticks $((m1[0] - m0[0])) machine_total_ticks $((m1[1] - m0[1])) \
    wall_us $((t1 - t0)) rss_kb "$( ((${#proxy_pids[@]})) && echo "$rss" || echo -)" fds "$( ((${#proxy_pids[@]})) && echo "$fds" || echo -)" \
    upstream_connects "$(difference "$accepts0" "$accepts1" 1)" machine_accepts "$(difference "$tcp0" "$tcp1")" \
    proxy_jit_ticks "$(difference "${jvm0[0]}" "${jvm1[0]}")" proxy_gc_ticks "$(difference "${jvm0[1]}" "${jvm1[1]}")" \
    live_heap_kb "$live_heap" alloc_bytes "${allocated[0]}" alloc_threads "${allocated[1]}" \
    trace_exports "$(difference "${k0[0]}" "${k1[0]}")" trace_bytes "$(difference "${k0[1]}" "${k1[1]}")" \
    hz "$hz" note "$note"
  row_write
  bench_sample_load
  progress_line "$target" "$payload" "$conns" "$rep" "${v[requests]}" "${v[duration_us]}" "$pt" "${v[p99_us]}" \
    "$((v[status] + v[connect] + v[read] + v[write] + v[timeout]))" "${allocated[0]}" "$note"
}

# difference BEFORE AFTER [MINUS]: AFTER - BEFORE - MINUS, never below 0, or "-" when either is unknown.
difference() {
  [ "$1" != - ] && [ "$2" != - ] && [ -n "$1" ] && [ -n "$2" ] || { echo -; return 0; }
  local d=$(($2 - $1 - ${3:-0}))
  echo $((d < 0 ? 0 : d))
}

# One line per run: req/s, CPU and bytes allocated per request, p99, errors.
progress_line() {
  awk -v t="$1" -v pl="$2" -v c="$3" -v rep="$4" -v n="$5" -v d="$6" -v ticks="$7" -v hz="$hz" -v p99="$8" \
      -v errors="$9" -v alloc="${10}" -v note="${11}" -v reps="$reps" 'BEGIN {
    rps = d > 0 ? n / (d / 1e6) : 0
    cpu = (t != "direct" && n > 0) ? sprintf("%6.1f µs/req", ticks * 1e6 / hz / n) : "      —     "
    mem = (alloc != "-" && n > 0) ? sprintf("  alloc %7.0f B/req", alloc / n) : ""
    printf "  %-15s %7s B × %-5s rep %s/%s  %9.0f req/s  cpu %s  p99 %8.2f ms  errors %s%s%s\n",
      t, pl, c, rep, reps, rps, cpu, (p99 == "-" ? 0 : p99 / 1000), errors, mem, (note != "" ? "  (" note ")" : "")
  }'
}

# ---- preflight: every target answers every payload correctly, on a kept-alive connection ------------
preflight_matrix() {
  local target size url line failed=0
  for target in "${targets[@]}"; do
    for size in "${payloads[@]}"; do
      url="http://127.0.0.1:$(target_port "$target")/$size"
      # Two requests on one connection: both must be 200 with exactly SIZE body bytes, the second reusing it.
      line=$(curl -sS -H 'Expect:' -H 'Content-Type: application/octet-stream' --max-time 10 \
        --data-binary "@$out/run/backend/www/$size" -o /dev/null -o /dev/null \
        -w '%{http_code}:%{size_download}:%{num_connects} ' "$url" "$url" 2>&1) || true
      if [ "$line" != "200:$size:1 200:$size:0 " ]; then
        progress "PREFLIGHT $target $size B: expected '200:$size:1 200:$size:0' (status:bytes:new connections), got '$line'"
        failed=1
        preflight_notes+=("$target $size B: $line")
      fi
    done
  done
  [ "$failed" = 0 ] && progress "preflight: every target returns 200 and the payload's size for every payload, with keep-alive"
  return 0
}

preflight_scale() {
  local target body
  for target in "${targets[@]}"; do
    body=$(curl -sS -H 'Expect:' --max-time 10 --data-binary 'preflight' "http://127.0.0.1:$(target_port "$target")$STUB_PATH" 2>&1) || true
    if [[ $body != preflight-appended\ by\ servlet* ]]; then
      progress "PREFLIGHT scale $target: unexpected answer '${body:0:120}'"
      preflight_notes+=("scale $target: ${body:0:120}")
    fi
  done
}
