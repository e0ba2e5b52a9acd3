#!/usr/bin/env python3
"""python3 smaps.py PID HEAP_INFO: "HEAP_RSS_KIB REST_RSS_KIB" from /proc/PID/smaps, the Java heap
being the address range that HEAP_INFO (jcmd PID GC.heap_info output, saved) names for its
generations; the rest is everything else resident (metaspace, code, GC structures, thread stacks,
direct buffers, malloc)."""
import re
import sys

pid, info = sys.argv[1], open(sys.argv[2]).read()
addrs = [int(a, 16) for line in info.splitlines() if re.search(r"Gen|space|region", line)
         for a in re.findall(r"0x[0-9a-f]+", line)]
lo, hi = (min(addrs), max(addrs)) if addrs else (0, 0)
heap = rest = 0
start = end = 0
for line in open(f"/proc/{pid}/smaps"):
    m = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", line)
    if m:
        start, end = int(m.group(1), 16), int(m.group(2), 16)
    elif line.startswith("Rss:"):
        kib = int(line.split()[1])
        if lo <= start and end <= hi:
            heap += kib
        else:
            rest += kib
print(heap, rest)
