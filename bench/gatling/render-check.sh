#!/usr/bin/env bash
# Renders a bench report.html in headless Chromium (Debian's chromium, installed when missing) with the
# network cut off, saves a screenshot beside it, and checks that the charts drew their bars on screen:
#   bench/gatling/render-check.sh [--expect-failures] REPORT_HTML [SCREENSHOT_PNG]
# The req/s and latency charts always have bars; the failures chart only when some target failed
# requests, so --expect-failures (for a report known to hold failures) checks that one too.
# Exit 0 when the charts are on screen, 1 when one is not, 2 when Chromium is not available.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../bin/lib/daemon.sh
. "$root/bin/lib/daemon.sh"
# shellcheck source=../../bin/lib/packages.sh
. "$root/bin/lib/packages.sh"

expect_failures=false
[ "${1:-}" = --expect-failures ] && { expect_failures=true; shift; }
html=$(realpath "${1:?usage: render-check.sh [--expect-failures] REPORT_HTML [SCREENSHOT_PNG]}")
png=$(realpath -m "${2:-${html%.html}.png}")
ensure_packages render-check chromium || exit 2
java=$(daemon_java 17) || { echo "render-check: no JDK 17" >&2; exit 2; }

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# Offline on purpose: every host resolves to nothing, so a chart that needed a CDN would not draw.
# The other flags keep Chromium from reaching out on its own (this machine refuses those connections).
timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
  --host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir="$profile" \
  --window-size=1200,2400 --force-device-scale-factor=1 --screenshot="$png" "file://$html" >/dev/null 2>&1 || true
[ -s "$png" ] || { echo "render-check: Chromium wrote no screenshot of $html" >&2; exit 1; }

# One colour per chart, as Report.java draws them: today's req/s bars, the p99 bars, the failure bars.
colours=('#1565c0' '#0d47a1')
$expect_failures && colours+=('#c62828')
failed=0
while read -r colour count; do
  case $colour in
    '#1565c0') chart="req/s" ;;
    '#0d47a1') chart="p50/p95/p99" ;;
    *) chart="failures" ;;
  esac
  if [ "$count" -lt 200 ]; then
    echo "render-check: the $chart chart drew no bars ($count pixels of $colour) in $png" >&2
    failed=1
  fi
done < <("$java" "$here/ChartPixels.java" "$png" "${colours[@]}")
[ $failed = 0 ] && echo "render-check: ${#colours[@]} charts drawn in headless Chromium ($png)"
exit $failed
