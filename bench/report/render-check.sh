#!/usr/bin/env bash
# Opens a bench report page in headless Chromium (Debian's chromium, installed when missing) with the
# network cut off, and checks that every chart drew: the page's own script, after Chart.js has drawn,
# counts per chart the bars it has values for and those painted on the canvas, and writes the counts
# on <body> (data-charts, data-charts-drawn), which Chromium's --dump-dom hands back. Also saves a
# screenshot beside the page.
#   bench/report/render-check.sh REPORT_HTML [SCREENSHOT_PNG]
# Exit 0 when every chart drew (and there is at least one), 1 when one did not, 2 when Chromium is not available.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../bin/lib/packages.sh
. "$root/bin/lib/packages.sh"

html=$(realpath "${1:?usage: render-check.sh REPORT_HTML [SCREENSHOT_PNG]}")
png=$(realpath -m "${2:-${html%.html}.png}")
ensure_packages render-check chromium || exit 2

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# Offline on purpose: every host resolves to nothing, so a page that needed a CDN would not draw.
# The other flags keep Chromium from reaching out on its own (this machine refuses those connections).
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
  --disable-component-update --disable-sync --hide-scrollbars --host-resolver-rules='MAP * ~NOTFOUND'
  --user-data-dir="$profile" --window-size=1280,2000 --force-device-scale-factor=1 --virtual-time-budget=10000)
dom=$(timeout 60 chromium "${flags[@]}" --dump-dom "file://$html" 2>/dev/null || true)
timeout 60 chromium "${flags[@]}" --screenshot="$png" "file://$html" >/dev/null 2>&1 || true

body=$(grep -o '<body[^>]*>' <<<"$dom" | head -n 1 || true)
charts=$(sed -n 's/.*data-charts="\([0-9]*\)".*/\1/p' <<<"$body")
drawn=$(sed -n 's/.*data-charts-drawn="\([0-9]*\)".*/\1/p' <<<"$body")
if [ -z "$charts" ] || [ -z "$drawn" ]; then
  echo "render-check: the page's script did not finish in headless Chromium ($html)" >&2
  exit 1
fi
if [ "$charts" -eq 0 ] || [ "$drawn" -ne "$charts" ]; then
  echo "render-check: $drawn of $charts charts drew all their bars in $html" >&2
  grep -o '<canvas[^>]*>' <<<"$dom" | sed 's/^/  /' >&2 || true
  exit 1
fi
echo "render-check: all $charts charts drawn in headless Chromium, offline ($png)"
