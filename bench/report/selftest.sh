#!/usr/bin/env bash
# Self-test of bench/report on made-up runs (bench/report/selftest/): its unit tests, then the jar as the
# bench scripts use it: results from a TSV (derived fields, schema-valid), report.md, report.html drawn in
# headless Chromium, a refused invalid file, the verdict, and two runs compared. No load is generated.
set -euo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/report.sh
. "$root/bench/lib/report.sh"
# shellcheck source=../../bin/lib/packages.sh
. "$root/bin/lib/packages.sh"
ensure_packages "report selftest" jq || exit 1 # reads a count out of results.json below

fixtures=$here/selftest
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=../lib/check.sh
. "$root/bench/lib/check.sh"

report_jar >/dev/null
mvn -q -B -f "$here/pom.xml" test

results() { # NAME TSV: a results file from a fixture TSV, as bench_report writes them
  report_tool results --bench throughput --spec "$fixtures/report.json" --out "$work/$1/results.json" \
    --command "bench/report/selftest.sh" --started 2026-11-24T16:00:00Z --load-before 0.25 --repo "$root" \
    --rows "$2" --version nginx=nginx/1.22.1 --param repetitions=3 >/dev/null
}
results a "$fixtures/a.tsv"
results b "$fixtures/b.tsv"

check "results.json follows the schema" report_tool validate "$work/a/results.json"
rows() { jq '.rows | length' "$1"; }
check "results.json holds one row per TSV line" test "$(rows "$work/a/results.json")" = 24
check "a derived field is written into each row" grep -q '"us_per_request_at_rps"' "$work/a/results.json"
report_tool render --results "$work/a/results.json" >/dev/null
check "report.md lays the cells out with median [min–max]" grep -qE '^\| 512 B \| 80 \| [0-9.]+ \[[0-9.]+–[0-9.]+\] \|' "$work/a/report.md"
check "report.md judges the checks" grep -q '^| zero errors | met (4/4) |' "$work/a/report.md"
check "report.html embeds no unescaped < from the results" bash -c "! grep -q 'results < &' '$work/a/report.html'"
check "report.html needs nothing from the network" bash -c "! grep -qiE '<(script|link|img)[^>]+(src|href)=' '$work/a/report.html'"
check "report.html draws every chart in headless Chromium, offline" "$here/render-check.sh" "$work/a/report.html"

sed 's/"rps"/"rps_typo"/' "$work/a/results.json" >"$work/bad.json"
check "a file missing a common field is refused" bash -c "! report_tool validate '$work/bad.json'"
check "render refuses it too" bash -c "! report_tool render --results '$work/bad.json'"
check "the verdict passes when no row failed a request" report_tool verdict --results "$work/a/results.json"
sed '0,/"ko" : 0/s//"ko" : 3/' "$work/a/results.json" >"$work/ko.json"
check "the verdict fails when one did" bash -c "! report_tool verdict --results '$work/ko.json'"

report_tool compare "$work/a/results.json" "$work/b/results.json" --bench throughput --out-dir "$work/cmp" \
  --label-a before --label-b after >/dev/null
check "compare shows both runs and their ratio" grep -qE '^\| 512 B \| 80 \| kodiak \| .* \| 0\.9[0-9]' "$work/cmp/compare.md"
check "compare leaves an unchanged target at 1.00" grep -qE '^\| 512 B \| 80 \| nginx \| .* \| 1\.00( \[[^]]*\])? \|$' "$work/cmp/compare.md"
check "compare.html draws in headless Chromium" "$here/render-check.sh" "$work/cmp/compare.html"
check "compare refuses a run of another bench" bash -c "! report_tool compare '$work/a/results.json' '$work/b/results.json' --bench tls --out-dir '$work/x'"

# Every bench's own layout (bench/*/report.json) on its fixture (src/test/resources/fixtures, the same
# files BenchSpecsTest reads): its page draws every chart in headless Chromium.
for spec in "$root"/bench/*/report.json; do
  bench=$(basename "$(dirname "$spec")")
  rows=()
  for tsv in "$here/src/test/resources/fixtures/$bench".{tsv,jsonl} "$here/src/test/resources/fixtures/$bench"-*.{tsv,jsonl}; do
    [ -f "$tsv" ] && rows+=(--rows "$tsv")
  done
  report_tool results --bench "$bench" --spec "$spec" --out "$work/$bench/results.json" --command "bin/bench.sh $bench (fixture)" \
    --started 2026-11-24T16:00:00Z --repo "$root" "${rows[@]}" >/dev/null &&
    report_tool render --results "$work/$bench/results.json" >/dev/null
  check "bin/bench.sh $bench's page draws every chart in headless Chromium (its fixture)" \
    "$here/render-check.sh" "$work/$bench/report.html"
done

checks_done "bench/report selftest"
