#!/usr/bin/env bash
# Self-test of the faults bench's judge: FaultLoad.java straight against FaultStub.java, no proxy, in
# each of the server's modes, must class every answer as the mode makes it (ok; truncated for a reset
# mid-body; bad-response for garbage; wrong-body for a short close-delimited body and for another
# request's bytes). A driver that called a cut body ok would make every "wrong answers: 0" meaningless.
# Port 19199. Bounded: the server is stopped by pid on exit.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
. "$root/bin/lib/daemon.sh"
. "$root/bench/lib/check.sh"

java17=$(daemon_java 17) || { echo "faults selftest: Java 17 not found" >&2; exit 1; }
work=$(mktemp -d)
port=19199
trap 'daemon_stop server "$work/stub.pid" "FaultStub $port" 10 >/dev/null; rm -rf "$work"' EXIT
"$(dirname "$(readlink -f "$java17")")/javac" -d "$work/classes" "$here/FaultStub.java" "$here/FaultLoad.java"
daemon_start server "$work/stub.pid" "$work/stub.console.log" "FaultStub $port" 127.0.0.1 "$port" 60 -- \
  "$java17" -cp "$work/classes" FaultStub "$port" "$work/stub.log" s1

classes() {   # MODE: the classes of 2 s of load in that mode, "class count" lines
  curl -s -m 2 "http://127.0.0.1:$port/__fault/$1" >/dev/null
  "$java17" -cp "$work/classes" FaultLoad load "$port" 4 2 10 "$work/$1.tsv" "$1" >/dev/null
  awk '{ print $6 }' "$work/$1.tsv" | sort | uniq -c | awk '{ print $2, $1 }' >"$work/$1.classes"
}
only() {   # MODE CLASS...: every request of MODE got one of CLASSes, and some got the first
  local mode=$1
  shift
  cat "$work/$mode.classes"
  grep -q "^$1 " "$work/$mode.classes" && ! grep -vqE "^($(IFS='|'; echo "$*")) " "$work/$mode.classes"
}
for mode in normal reset garbage lie-short lie-swap; do classes "$mode"; done
check "normal: every answer ok" only normal ok
# A response of 0 bytes is whole even when reset after its head; the next request on that connection
# then finds it closed.
check "reset mid-body: truncated (or ok when empty; closed/reset on the next request)" only reset truncated ok closed reset
check "garbage: bad-response" only garbage bad-response
check "a short close-delimited body: wrong-body (or ok when empty)" only lie-short wrong-body ok
check "another request's bytes: wrong-body (or ok when empty)" only lie-swap wrong-body ok
checks_done "faults selftest"
