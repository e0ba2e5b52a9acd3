# bench/h2's results: results.md (the table, the command, the machine, the versions) from runs.jsonl, each
# field read by its name, and Kodiak's warnings during the run. Sourced by run.sh.

# by_name [-v NAME=VALUE]... PROGRAM...: the awk PROGRAM run over runs.jsonl as a table in which
# $col["FIELD"] is a field's value ("-" for null): the program names the fields it reads, never positions.
by_name() {
  local vars=()
  while [ "$1" = -v ]; do vars+=(-v "$2"); shift 2; done
  jq -rs '(.[0] // {} | keys_unsorted) as $k | ($k | @tsv), (.[] | [.[$k[]] | if . == null then "-" else tostring end] | @tsv)' \
    "$out/runs.jsonl" | awk -F'\t' ${vars[@]+"${vars[@]}"} 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } '"$*"
}

# Kodiak's log: anything it warned about during the run (its access log is off). Sets kodiak_warnings.
collect_kodiak_warnings() {
  local f
  kodiak_warnings=""
  in_targets kodiak || return 0
  for f in "$out/run/kodiak/logs/console.log" "$out/run/kodiak/logs/kodiak.log"; do
    [ -f "$f" ] || continue
    # Each WARN or ERROR line with the exception under it (its first line, and the first frame), counted.
    kodiak_warnings+=$(awk '
      function flush() { if (msg != "") print msg; msg = "" }
      / (WARN|ERROR) / { flush(); msg = $0; sub(/^[0-9:.]+ /, "", msg); frames = 0; next }
      msg != "" && /^[A-Za-z_$][A-Za-z0-9_$.]*(Exception|Error)/ { msg = msg " — " $0; next }
      msg != "" && /^[ \t]+at / { if (frames++ == 0) { f = $0; sub(/^[ \t]+/, "", f); msg = msg " " f } ; next }
      { flush() }
      END { flush() }' "$f" | sort | uniq -c | sort -rn | head -n 10 || true)
  done
}

# write_results_md ELAPSED_S: results.md in the run's directory.
write_results_md() {
  local elapsed=$1 versions client_side title load_what upstream_what notes v
  versions=("h2load: $(h2load --version 2>&1 | head -n 1)" "nginx: $(version_of nginx "$(command -v nginx)")")
  in_targets haproxy && versions+=("haproxy: $(version_of haproxy "$(command -v haproxy)")")
  in_targets kodiak && versions+=("java: $(version_of java "$java17")")
  $tls && versions+=("openssl: $(version_of openssl)")
  [ "$mode" = grpc ] && versions+=("grpc-java (GrpcEcho, grpc-netty-shaded): ${grpc_version:-unknown}; GrpcEcho's java: $(version_of java "$java17")")
  client_side=$($tls && echo 'h2 over TLS (ALPN)' || echo 'h2c (prior knowledge)')
  case $mode in
    http1) title="$client_side → HTTP/1.1 backend"
           load_what="\`h2load -t 1 -c C -m M -D $seconds $scheme://127.0.0.1:PORT/SIZE\` (GET)"
           upstream_what="HTTP/1.1 keep-alive to one nginx backend (2 workers) serving fixed files" ;;
    h2c)   title="$client_side → h2c backend"
           load_what="\`h2load -t 1 -c C -m M -D $seconds $scheme://127.0.0.1:PORT/SIZE\` (GET)"
           upstream_what="HTTP/2 (h2c, prior knowledge) to one nginx backend (2 workers, \`listen ... http2\`, 128 streams per connection) serving fixed files: Kodiak through a group with protocol = \"h2\", HAProxy \`server ... proto h2\` (http-reuse always)" ;;
    grpc)  title="gRPC unary calls, $client_side → grpc-java server (h2c)"
           load_what="\`h2load -t 1 -c C -m M -D $seconds -d MSG -H 'content-type: application/grpc' -H 'te: trailers' $scheme://127.0.0.1:PORT$GRPC_PATH\` (POST; MSG one gRPC-framed message: 0, length 100 big-endian, 100 bytes, echoed back)"
           upstream_what="HTTP/2 (h2c, prior knowledge) to one grpc-java 1.85 Netty server (bench/h2/grpc/GrpcEcho.java, its default 2 × cores event loops, the echo on them; -Xmx512m ParallelGC): Kodiak through a group with protocol = \"h2\", HAProxy \`server ... proto h2\` (http-reuse always), nginx \`grpc_pass grpc://\` (keepalive 2048)" ;;
  esac
  {
    echo "# HTTP/2 benchmark: $title"
    echo
    echo "- command: \`$invocation\`"
    echo "- date: $(date -u '+%F %T') UTC; measured in $((elapsed / 60)) min $((elapsed % 60)) s; load average before $load_before, after $load_after"
    echo "- machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)"
    for v in "${versions[@]}"; do echo "- $v"; done
    [ -z "$kodiak_info" ] || echo "- Kodiak: $kodiak_info; JAVA_OPTS -Dlogback.configurationFile=bench/throughput/logback.xml (access log off)${KODIAK_JAVA_OPTS:+ $KODIAK_JAVA_OPTS}"
    echo "- load: $load_what, $rounds round(s) per cell, targets alternating within a round;" \
         "warm-up per cell and target ${warm} s (Kodiak's first: ${kodiak_first_warm} s$([ "$mode" = grpc ] && echo "; the gRPC server's, directly, ${kodiak_first_warm} s before the first cell")), not recorded"
    echo "- proxies: 2 workers/threads each (nginx worker_processes 2, HAProxy nbthread 2, Kodiak selector-threads 2 same-thread), $upstream_what"
    if [ "$mode" = h2c ] && in_targets nginx; then
      echo "- nginx: through \`grpc_pass grpc://backend\` (keepalive 2048), nginx 1.22's only HTTP/2 upstream: proxy_pass speaks HTTP/1.0/1.1 alone; grpc_pass relays plain GETs too, but does not multiplex (one upstream connection per request in flight)"
    elif [ "$mode" = h2c ]; then
      echo "- nginx: not a target in this run (--targets); with it, it goes through grpc_pass, its only HTTP/2 upstream"
    fi
    in_targets direct && echo "- direct: h2load straight to the backend (h2c), no proxy; its CPU µs/req is the backend's own"
    if [ "$mode" = grpc ]; then
      echo "- CPU µs/req: utime+stime of the proxy's own processes (/proc/PID/stat) over the run ÷ 2xx responses; errors: h2load's failed + errored + non-2xx + 2xx responses without their 105-byte message" \
           "(h2load reads no trailers; its data bytes short of 105 per succeeded request: trailers-only answers, i.e. grpc-status not 0), summed over the rounds;" \
           "other CPU: the machine's busy time (/proc/stat) not spent by the proxy, the backend or h2load, in % of all CPU time, the largest of the rounds (someone else's load)"
      echo "- gRPC check: after each measured run, $GRPC_CHECK_CALLS unary calls at once through that target (\`GrpcEcho client\`, grpc-java's own client: fails on any grpc-status but 0 or a wrong echo):" \
           "$(by_name '{ check = $col["grpc_check"]; if (check != "-") { n++; if (check != "ok") bad++; if (check == "FAIL") failed = 1 } }' \
              'END { printf "%d of %d checks passed%s", n - bad, n, failed ? " (failures in the errors column and the notes)" : "" }')"
    else
      echo "- CPU µs/req: utime+stime of the proxy's own processes (/proc/PID/stat) over the run ÷ 2xx responses; errors: h2load's failed + errored + non-2xx, summed over the rounds;" \
           "other CPU: the machine's busy time (/proc/stat) not spent by the proxy, the backend or h2load, in % of all CPU time, the largest of the rounds (someone else's load)"
    fi
    [ ${#preflight_notes[@]} -eq 0 ] || { echo "- PREFLIGHT FAILURES:"; printf '  - %s\n' "${preflight_notes[@]}"; }
    echo
    echo "| body | -c × -m | target | req/s median (min–max) | CPU µs/req median (min–max) | errors | Kodiak/nginx CPU per req | other CPU % (max) |"
    echo "|---|---|---|---|---|---|---|---|"
    by_name -v order="${targets[*]}" '
      function median(list,   a, n, i, j, v) {
        n = split(list, a, " "); if (n == 0) return "-"
        for (i = 2; i <= n; i++) { v = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > v; j--) a[j + 1] = a[j]; a[j + 1] = v }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      }
      function range(list,   a, n, i, lo, hi) {
        n = split(list, a, " "); if (n == 0) return ""
        lo = hi = a[1] + 0; for (i = 2; i <= n; i++) { if (a[i] + 0 < lo) lo = a[i] + 0; if (a[i] + 0 > hi) hi = a[i] + 0 }
        return sprintf("%s–%s", fmt(lo), fmt(hi))
      }
      function fmt(x) { return x >= 1000 ? sprintf("%.0f", x) : sprintf("%.1f", x) }
      function num(x) { return x == "-" ? 0 : x + 0 }
      {
        key = $col["size"] SUBSEP $col["connections"] SUBSEP $col["streams"] SUBSEP $col["target"]
        if (!(($col["size"] SUBSEP $col["connections"] SUBSEP $col["streams"]) in seen)) { seen[$col["size"] SUBSEP $col["connections"] SUBSEP $col["streams"]] = 1
          cells[++ncells] = $col["size"] SUBSEP $col["connections"] SUBSEP $col["streams"] }
        if ($col["rps"] != "-") rps[key] = rps[key] " " $col["rps"]
        if ($col["cpu_us_per_req"] != "-") cpu[key] = cpu[key] " " $col["cpu_us_per_req"]
        err[key] += num($col["failed"]) + num($col["errored"]) + num($col["non_2xx"]) + num($col["no_message"])
        if ($col["grpc_check"] == "FAIL") chk[key]++
        if ($col["rps"] == "-" || $col["h2load_rc"] != 0) bad[key]++
        runs[key]++
        if (!(key in oth) || $col["other_cpu_pct"] + 0 > oth[key]) oth[key] = $col["other_cpu_pct"] + 0
      }
      END {
        nt = split(order, tg, " ")
        for (i = 1; i <= ncells; i++) {
          split(cells[i], p, SUBSEP)
          body = p[1] >= 1024 ? (p[1] / 1024) " KB" : p[1] " B"
          kc = median(cpu[cells[i] SUBSEP "kodiak"]); nc = median(cpu[cells[i] SUBSEP "nginx"])
          for (j = 1; j <= nt; j++) {
            key = cells[i] SUBSEP tg[j]
            if (!(key in runs)) continue
            r = median(rps[key]); c = median(cpu[key])
            ratio = (tg[j] == "kodiak" && kc != "-" && nc != "-" && nc > 0) ? sprintf("%.2f", kc / nc) : ""
            printf "| %s | %s × %s | %s | %s | %s | %d%s%s | %s | %d |\n", body, p[2], p[3], tg[j],
              (r == "-" ? "—" : fmt(r) " (" range(rps[key]) ")"), (c == "-" ? "—" : fmt(c) " (" range(cpu[key]) ")"),
              err[key], (bad[key] ? " (" bad[key] " run(s) without a clean result)" : ""),
              (chk[key] ? " (gRPC check failed after " chk[key] " of " runs[key] " run(s))" : ""), ratio, oth[key]
          }
        }
      }'
    notes=$(by_name '$col["note"] != "-" && $col["note"] != "" { printf "- %s B, -c %s -m %s, %s, round %s: %s\n", $col["size"], $col["connections"], $col["streams"], $col["target"], $col["repetition"], $col["note"] }')
    if [ -n "$notes" ]; then echo; echo "Notes from the runs:"; echo; echo "$notes"; fi
    if [ -n "$kodiak_warnings" ]; then
      echo; echo "Kodiak's warnings and errors during the run (count, message):"; echo; echo '```'; echo "$kodiak_warnings"; echo '```'
    fi
    echo
    echo "Raw h2load outputs: h2load/ (warm-*.txt and preflight-*.txt unrecorded); one row per measured run: runs.jsonl; configurations: run/*/.$([ "$mode" = grpc ] && echo " GrpcEcho's build and every check's output: grpc/.")"
  } >"$out/results.md"
}

# write_report: results.json, report.md and report.html from runs.jsonl through bench/report, laid out by
# bench/h2/report.json (the verdict first: each proxy against nginx), with the run's description.
write_report() {
  local facts=(--version "h2load=$(h2load --version 2>&1 | head -n 1)" --version "nginx=$(version_of nginx "$(command -v nginx)")")
  in_targets haproxy && facts+=(--version "haproxy=$(version_of haproxy "$(command -v haproxy)")")
  facts+=(--version "java=$(version_of java "$java17")")
  $tls && facts+=(--version "openssl=$(version_of openssl)")
  [ "$mode" != grpc ] || facts+=(--version "grpc-java=${grpc_version:-unknown}")
  facts+=(--param "mode=$($tls && echo 'h2 over TLS (ALPN)' || echo 'h2c (prior knowledge)')" --param "backend=$mode"
    --param "targets=${targets[*]}" --param "rounds=$rounds" --param "seconds=$seconds"
    --param "warm-up=${warm} s per cell and target, Kodiak's first ${kodiak_first_warm} s, not recorded")
  [ -z "$kodiak_info" ] || facts+=(--param "Kodiak=$kodiak_info; JAVA_OPTS $kodiak_java_opts")
  [ ${#preflight_notes[@]} -eq 0 ] || facts+=(--param "preflight failures=$(printf '%s; ' "${preflight_notes[@]}")")
  bench_report h2 "$out" "$invocation" --rows "$out/runs.jsonl" "${facts[@]}" >/dev/null
}
