# The made-up runs of bench/throughput/selftest.sh, with round numbers so that every derived figure, table
# cell and check can be worked out by hand. Written as run.sh writes them: by name, through
# bench/lib/rows.sh, with results.sh's RUN_FIELDS. Sourced by selftest.sh.

m80="matrix 512 B × 80" m1280="matrix 512 B × 1280" m640="matrix 10 KB × 640" s8000="scale 8000 connections, 500 ms upstream"

# run PHASE TARGET PAYLOAD CONNECTIONS REPETITION [FIELD VALUE]...: one recorded run; a field not given has a
# plain default (no errors, a 10 s run, 2,000 ticks of machine time, nothing sampled).
run() {
  local phase=$1 target=$2 payload=$3 conns=$4 rep=$5 scenario size
  shift 5
  size=$(size_label "$payload")
  case $phase in
    matrix) scenario="matrix $size × $conns" ;;
    scale) scenario="scale $conns connections, 500 ms upstream" ;;
    heap) scenario="live heap at $conns connections, 500 ms upstream" ;;
  esac
  row_new
  row_set phase "$phase" target "$target" family "$(is_kodiak "$target" && echo kodiak || echo "$target")" jvm "$(is_jvm_target "$target" && echo 1 || echo 0)" \
    scenario "$scenario" size "$size" payload "$payload" connections "$conns" repetition "$rep" position 1 planned_s 10 \
    proxied "$([ "$target" = direct ] && echo 0 || echo 1)" upstream_delay_ms "$([ "$phase" = matrix ] && echo 0 || echo 500)" \
    requests 0 duration_us 10000000 bytes 0 err_connect 0 err_read 0 err_write 0 err_status 0 err_timeout 0 \
    mean_us - p50_us - p75_us - p90_us - p95_us - p99_us - max_us - proxy_user_ticks - proxy_sys_ticks - \
    upstream_ticks 0 wrk_ticks 0 collector_ticks 0 accounted_ticks 0 machine_busy_ticks 0 machine_total_ticks 2000 \
    wall_us 10300000 rss_kb - fds - upstream_connects - machine_accepts - proxy_jit_ticks - proxy_gc_ticks - live_heap_kb - \
    alloc_bytes - alloc_threads - trace_exports - trace_bytes - hz 100 note ""
  row_set "$@"
  row_write
}

# Three cells of the matrix and one scale level: Kodiak, nginx, HAProxy and direct.
fixture() {
  local rep requests
  # Kodiak: 101,000-103,000 requests in 10 s; 300 + 100 ticks at 100 Hz = 4 s of CPU, ~39.6 µs per request;
  # 400 bytes allocated per request. The targets rotate, as run.sh runs them; the report lists them in its own order.
  for rep in 1 2 3; do
    requests=$((100000 + rep * 1000))
    run matrix nginx 512 80 $rep position 1 requests 200000 bytes 120000000 mean_us 1000 p50_us 900 p99_us 3000 \
      proxy_user_ticks 200 proxy_sys_ticks 200 upstream_ticks 160 wrk_ticks 300 accounted_ticks 860 machine_busy_ticks 860 \
      rss_kb 40960 fds 240 upstream_connects 0 machine_accepts 81
    run matrix kodiak 512 80 $rep position 2 requests $requests bytes 60000000 mean_us 2000 p50_us 1500 p99_us 5000 \
      proxy_user_ticks 300 proxy_sys_ticks 100 upstream_ticks 80 wrk_ticks 150 accounted_ticks 630 machine_busy_ticks 630 \
      rss_kb 204800 fds 250 upstream_connects 0 machine_accepts 81 proxy_jit_ticks 10 proxy_gc_ticks 5 \
      alloc_bytes $((requests * 400)) alloc_threads 14
    run matrix haproxy 512 80 $rep position 3 requests 150000 bytes 90000000 mean_us 1000 p50_us 900 p99_us 3500 \
      proxy_user_ticks 150 proxy_sys_ticks 150 upstream_ticks 120 wrk_ticks 200 accounted_ticks 620 machine_busy_ticks 620 \
      rss_kb 20480 fds 230 upstream_connects 0 machine_accepts 81
    run matrix direct 512 80 $rep position 4 requests 400000 bytes 240000000 mean_us 500 p50_us 400 p99_us 1000 \
      upstream_ticks 300 wrk_ticks 600 accounted_ticks 900 machine_busy_ticks 900 upstream_connects 80 machine_accepts 80
  done
  # At 1,280 connections Kodiak's p99 is 90 ms over nginx's: beyond the p99 target's 640 connections.
  run matrix kodiak 512 1280 1 requests 300000 bytes 180000000 mean_us 50000 p50_us 40000 p99_us 100000 \
    proxy_user_ticks 500 proxy_sys_ticks 200 upstream_ticks 200 wrk_ticks 300 accounted_ticks 1200 machine_busy_ticks 1200 \
    rss_kb 307200 fds 1400 upstream_connects 0 machine_accepts 1281 proxy_jit_ticks 20 proxy_gc_ticks 20
  run matrix nginx 512 1280 1 position 2 requests 300000 bytes 180000000 mean_us 5000 p50_us 4000 p99_us 10000 \
    proxy_user_ticks 400 proxy_sys_ticks 200 upstream_ticks 200 wrk_ticks 300 accounted_ticks 1100 machine_busy_ticks 1100 \
    rss_kb 51200 fds 1300 upstream_connects 0 machine_accepts 1281
  # A failing Kodiak run: 5 status errors and 2 timeouts, 12 new upstream connections; the machine was busy
  # with others (1,250 of 2,000 ticks busy, 600 of them not wrk's, the proxy's or the backend's).
  run matrix kodiak 10240 640 1 requests 50000 bytes 60000000 err_status 5 err_timeout 2 mean_us 5000 p50_us 4000 p99_us 20000 \
    proxy_user_ticks 250 proxy_sys_ticks 250 upstream_ticks 80 wrk_ticks 70 accounted_ticks 650 machine_busy_ticks 1250 \
    rss_kb 307200 fds 1400 upstream_connects 12 machine_accepts 653 proxy_jit_ticks 50 proxy_gc_ticks 20
  # nginx: 25 connections accepted beyond wrk's 640 + 1.
  run matrix nginx 10240 640 1 position 2 requests 60000 bytes 60000000 mean_us 5000 p50_us 4000 p99_us 15000 \
    proxy_user_ticks 150 proxy_sys_ticks 150 upstream_ticks 80 wrk_ticks 70 accounted_ticks 450 machine_busy_ticks 450 \
    rss_kb 51200 fds 1300 upstream_connects 0 machine_accepts 666
  # Scale: 300,000 requests in 20 s = 15,000 req/s against a ceiling of 8,000 / 0.5 s; Kodiak at 293 MB.
  run scale kodiak 512 8000 1 planned_s 20 requests 300000 duration_us 20000000 bytes 30000000 \
    mean_us 510000 p50_us 505000 p99_us 550000 proxy_user_ticks 600 proxy_sys_ticks 300 upstream_ticks 500 wrk_ticks 300 \
    accounted_ticks 1700 machine_busy_ticks 1700 machine_total_ticks 4000 rss_kb 300000 fds 16040 machine_accepts 8000 \
    proxy_jit_ticks 5 proxy_gc_ticks 30
  run scale nginx 512 8000 1 position 2 planned_s 20 requests 280000 duration_us 20000000 bytes 28000000 \
    mean_us 510000 p50_us 505000 p99_us 560000 proxy_user_ticks 400 proxy_sys_ticks 300 upstream_ticks 500 wrk_ticks 300 \
    accounted_ticks 1500 machine_busy_ticks 1500 machine_total_ticks 4000 rss_kb 100000 fds 16030 machine_accepts 8000
  run scale direct 512 8000 1 position 3 planned_s 20 requests 310000 duration_us 20000000 bytes 31000000 \
    mean_us 505000 p50_us 502000 p99_us 530000 upstream_ticks 900 wrk_ticks 300 accounted_ticks 1200 machine_busy_ticks 1200 \
    machine_total_ticks 4000 machine_accepts 8000 note "wrk exit 1"
  # The live-heap run: Kodiak held 40,960 kB after the histogram's full collection.
  run heap kodiak 512 8000 1 planned_s 20 requests 300000 duration_us 20000000 bytes 30000000 \
    mean_us 510000 p50_us 505000 p99_us 560000 proxy_user_ticks 600 proxy_sys_ticks 300 upstream_ticks 500 wrk_ticks 300 \
    accounted_ticks 1700 machine_busy_ticks 1700 machine_total_ticks 4000 rss_kb 250000 fds 16040 machine_accepts 8000 \
    proxy_jit_ticks 5 proxy_gc_ticks 30 live_heap_kb 40960
}

# Kodiak beside its tracing variants in one cell: at 1 % 40.0 µs per request (0.4-1.2 µs over Kodiak's, round
# by round), at 100 % 45.0 µs (5.4-6.2 over); 600 and 1,500 bytes allocated per request against Kodiak's 400.
fixture_tracing() {
  local rep requests
  for rep in 1 2 3; do
    requests=$((100000 + rep * 1000))
    run matrix kodiak 512 80 $rep requests $requests proxy_user_ticks 300 proxy_sys_ticks 100 alloc_bytes $((requests * 400))
    run matrix kodiak-trace1 512 80 $rep position 2 requests 100000 proxy_user_ticks 300 proxy_sys_ticks 100 \
      alloc_bytes 60000000 trace_exports 2 trace_bytes 70000 collector_ticks 3
    run matrix kodiak-trace100 512 80 $rep position 3 requests 100000 proxy_user_ticks 350 proxy_sys_ticks 100 \
      alloc_bytes 150000000 trace_exports 40 trace_bytes 34000000 collector_ticks 30
  done
}
