#!/usr/bin/env python3
"""bench/memory's report: python3 report.py OUT COMMAND COMMIT JAVA

Reads OUT/results.jsonl (bench/memory/run.sh), OUT/histograms/ and OUT/nmt/; writes
OUT/per-connection.jsonl (per state: bytes per connection, the least-squares slope over the counts,
for heap, direct and resident memory) and OUT/report.md.
"""
import json
import os
import re
import subprocess
import sys
import time

out, command, commit, java = sys.argv[1:5]
rows = [json.loads(l) for l in open(os.path.join(out, "results.jsonl")) if l.strip()]
MIB = 1024 * 1024
METRICS = [("heap_after_gc_bytes", "heap after full GC"), ("histogram_bytes", "live heap (class histogram)"),
           ("buffers_pooled_bytes", "pooled direct (kodiak_buffers_pooled_bytes)"),
           ("jvm_direct_bytes", "JDK direct buffers (jvm_buffer_memory_used_bytes)"),
           ("write_queues_bytes", "write queues"), ("rss_before_gc_bytes", "resident before the bench's GCs"),
           ("rss_bytes", "resident (VmRSS) after them"),
           ("rss_heap_bytes", "resident: Java heap"), ("rss_rest_bytes", "resident: the rest")]


def slope(points):
    pts = [(x, y) for x, y in points if y is not None]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


def hist(path):
    classes = {}
    try:
        for line in open(path):
            m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
            if m:
                classes[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    except OSError:
        pass
    return classes


def nmt(path):
    cats = {}
    try:
        for line in open(path):
            m = re.match(r"-\s+(.+?) \(reserved=(\d+)KB, committed=(\d+)KB\)", line.strip())
            if m:
                cats[m.group(1).strip()] = int(m.group(3)) * 1024
            m = re.match(r"Total: reserved=(\d+)KB, committed=(\d+)KB", line.strip())
            if m:
                cats["Total"] = int(m.group(2)) * 1024
    except OSError:
        pass
    return cats


def mib(v):
    return "" if v is None else f"{v / MIB:.1f}"


def per(v):
    return "" if v is None else f"{v:,.0f}"


states, runs = [], []
for r in rows:
    if r["run"] == "shipped" and r["state"] not in states:
        states.append(r["state"])
    if r["run"] != "nmt" and (r["run"], r["state"]) not in runs:
        runs.append((r["run"], r["state"]))
per_conn = []
for run, s in runs:
    rs = [r for r in rows if r["run"] == run and r["state"] == s]
    o = {"run": run, "state": s, "counts": [r["connections"] for r in rs]}
    for key, _ in METRICS:
        o[key.replace("_bytes", "") + "_per_connection"] = slope([(r["connections"], r.get(key)) for r in rs])
    o["java_opts"] = rs[0].get("java_opts")
    per_conn.append(o)
with open(os.path.join(out, "per-connection.jsonl"), "w") as f:
    for o in per_conn:
        f.write(json.dumps(o) + "\n")

uname = subprocess.run(["uname", "-srm"], capture_output=True, text=True).stdout.strip()
jv = subprocess.run([java, "-version"], capture_output=True, text=True).stderr.splitlines()[0]
md = [f"# Memory per connection ({time.strftime('%Y-%m-%d', time.gmtime())})", "",
      f"`{command}` at commit {commit}; {jv}; {uname}; 2 cores shared with other work (memory, not speed, is measured).",
      "Kodiak as shipped: `bin/proxy.sh start` (its JVM defaults) with bench/memory/kodiak.conf.", "",
      "## Bytes per connection (least-squares slope over the counts)", "",
      "| run | state | counts | heap after GC | live heap (histogram) | pooled direct | JDK direct | write queues | RSS before GCs | RSS after GCs | RSS: heap | RSS: rest |",
      "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for o in per_conn:
    md.append(f"| {o['run']} | {o['state']} | {','.join(map(str, o['counts']))} | " + " | ".join(
        per(o[k.replace('_bytes', '') + '_per_connection']) for k, _ in METRICS) + " |")
md += ["", "## Every point", "",
       "| run | state | N | opened | failed | heap after GC MiB | live heap MiB | pooled direct MiB | buffers in use | JDK direct MiB | write queues MiB | RSS before GCs MiB | RSS MiB | RSS: heap MiB | RSS: rest MiB | pool open/idle/leased | in flight | fds | threads |",
       "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|"]
for r in rows:
    md.append(f"| {r['run']} | {r['state']} | {r['connections']} | {r['opened']} | {r['failed']} | {mib(r['heap_after_gc_bytes'])} | "
              f"{mib(r['histogram_bytes'])} | {mib(r['buffers_pooled_bytes'])} | {r['buffers_in_use']} | {mib(r['jvm_direct_bytes'])} | "
              f"{mib(r['write_queues_bytes'])} | {mib(r.get('rss_before_gc_bytes'))} | {mib(r['rss_bytes'])} | "
              f"{mib(r.get('rss_heap_bytes'))} | {mib(r.get('rss_rest_bytes'))} | {r['pool_open']}/{r['pool_idle']}/{r['pool_leased']} | "
              f"{r['inflight_exchanges']} | {r['fds']} | {r['threads']} |")

for s in states:
    ns = sorted({r["connections"] for r in rows if r["run"] == "shipped" and r["state"] == s})
    if len(ns) < 2:
        continue
    a, b = (0, 4000) if 0 in ns and 4000 in ns else (ns[0], ns[-1])
    ha, hb = hist(os.path.join(out, "histograms", f"shipped-{s}-{a}.txt")), hist(os.path.join(out, "histograms", f"shipped-{s}-{b}.txt"))
    if not ha or not hb:
        continue
    diff = []
    for c in set(ha) | set(hb):
        di = hb.get(c, (0, 0))[0] - ha.get(c, (0, 0))[0]
        db = hb.get(c, (0, 0))[1] - ha.get(c, (0, 0))[1]
        diff.append((db, di, c))
    diff.sort(reverse=True)
    total = sum(d for d, _, _ in diff)
    md += ["", f"## {s}: heap classes per connection (histogram at N={b} less N={a}, divided by {b - a})", "",
           f"Total: {total / (b - a):,.0f} B per connection.", "",
           "| class | instances per connection | bytes per connection |", "|---|---:|---:|"]
    for db, di, c in diff[:15]:
        md.append(f"| `{c}` | {di / (b - a):.2f} | {db / (b - a):,.0f} |")

nmts = sorted((f for f in os.listdir(os.path.join(out, "nmt")) if f.endswith(".txt")),
              key=lambda f: int(re.sub(r"\D", "", f) or 0))
if len(nmts) >= 2:
    lo, hi = nmt(os.path.join(out, "nmt", nmts[0])), nmt(os.path.join(out, "nmt", nmts[-1]))
    nlo, nhi = int(re.sub(r"\D", "", nmts[0]) or 0), int(re.sub(r"\D", "", nmts[-1]))
    md += ["", f"## Native memory tracking (idle, -XX:NativeMemoryTracking=summary): committed at N={nlo} and N={nhi}", "",
           f"| category | N={nlo} MiB | N={nhi} MiB | per connection B |", "|---|---:|---:|---:|"]
    for c in sorted(set(lo) | set(hi), key=lambda c: -hi.get(c, 0)):
        if hi.get(c, 0) < MIB / 10 and lo.get(c, 0) < MIB / 10:
            continue
        md.append(f"| {c} | {mib(lo.get(c, 0))} | {mib(hi.get(c, 0))} | {per((hi.get(c, 0) - lo.get(c, 0)) / (nhi - nlo)) if nhi > nlo else ''} |")
    md += ["", "Committed is not resident: the heap is committed at -Xms but only the pages touched are resident."]
open(os.path.join(out, "report.md"), "w").write("\n".join(md) + "\n")
print("\n".join(md[:12 + len(per_conn)]))
