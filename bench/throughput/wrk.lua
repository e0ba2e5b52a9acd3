-- wrk script of bin/bench.sh throughput: POST a body of the payload size on keep-alive connections and print
-- one machine-readable RESULT line at the end, so run.sh never parses wrk's human-oriented summary.
-- Arguments after "--": SIZE (body bytes) and optionally PATH (default "/SIZE", the backend's file of that size).

function init(args)
  local size = tonumber(args[1] or "512")
  wrk.method = "POST"
  wrk.path = args[2] or ("/" .. size)
  wrk.body = string.rep("k", size)
  wrk.headers["Content-Type"] = "application/octet-stream"
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d " ..
    "mean_us=%.1f p50_us=%d p75_us=%d p90_us=%d p95_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(75), latency:percentile(90),
    latency:percentile(95), latency:percentile(99), latency.max))
end
