#!/usr/bin/env bash
# bench/throughput/compare-builds.sh [--rounds N] [--duration S] [--payloads LIST] [--concurrency LIST]
#                                    [--conf-a FILE] [--conf-b FILE] REV_A [REV_B]
# — whether a change to Kodiak bought anything: two git revisions of Kodiak, or one revision under two
# configurations, each measured against nginx in the same bin/bench.sh throughput run (matrix only,
# targets kodiak and nginx), the two alternating run by run (A B, then B A, ...). Each side's rounds
# become the repetitions of one results.json, and bench/report compares the two: each cell's medians
# [min–max] and B/A, Kodiak's and nginx's (nginx's B/A is the machine's drift between the sides).
# Defaults: 3 rounds, 8 s per cell, 512 B and 10 KB × 80 and 640 connections. Each revision is built
# from a git worktree. --conf-a/--conf-b: HOCON included after the bench's Kodiak config for that side
# (bin/bench.sh throughput --kodiak-conf), e.g. another io-strategy; REV_B defaults to REV_A then.
# Writes target/bench/compare-<timestamp>/ (compare.md, compare.html; each side's report in a/, b/).
set -euo pipefail
self=$(readlink -f "${BASH_SOURCE[0]}")
root=$(cd -P "$(dirname "$self")/../.." && pwd)
cd "$root"
# shellcheck source=../lib/report.sh
. "$root/bench/lib/report.sh"

rounds=3 duration=8 payloads=512,10k concurrency=80,640
confs=("" "")
die() { echo "compare-builds: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) shift; rounds=${1:-}; [[ $rounds =~ ^[1-9]$ ]] || die "--rounds takes 1-9" ;;
    --duration) shift; duration=${1:-}; [[ $duration =~ ^[1-9][0-9]{0,2}$ ]] || die "--duration takes seconds (1-999)" ;;
    --payloads) shift; payloads=${1:-}; [ -n "$payloads" ] || die "--payloads takes a list, as bin/bench.sh throughput does" ;;
    --concurrency) shift; concurrency=${1:-}; [ -n "$concurrency" ] || die "--concurrency takes a list, as bin/bench.sh throughput does" ;;
    --conf-a|--conf-b) opt=$1 side=0; [ "$opt" = --conf-b ] && side=1; shift
      [ -f "${1:-}" ] && [ -r "$1" ] || die "$opt takes a readable HOCON file; '${1:-}' is not one"
      confs[$side]=$(readlink -f "$1") ;;
    -h|--help) sed -n '2,12p' "$self"; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
  shift
done
configs_differ=false
[ "${confs[0]}" != "${confs[1]}" ] && configs_differ=true
if [ $# -eq 1 ] && [ "$configs_differ" = true ]; then
  set -- "$1" "$1"
fi
[ $# -eq 2 ] || die "expected two git revisions, e.g. main my-branch, or one with --conf-a/--conf-b (see --help)"
revs=("$1" "$2")
declare -a shas
for rev in "${revs[@]}"; do
  shas+=("$(git -C "$root" rev-parse --short "$rev^{commit}" 2>/dev/null)") || die "$rev is not a git revision here"
done
[ "${shas[0]}" != "${shas[1]}" ] || [ "$configs_differ" = true ] \
  || die "$1 and $2 are the same commit (${shas[0]}) with the same configuration"
# The report tells the two sides apart by these names.
declare -a names
for i in 0 1; do
  names+=("${revs[$i]}@${shas[$i]}${confs[$i]:+ + $(basename "${confs[$i]}")}")
done
[ "${names[0]}" != "${names[1]}" ] || die "both sides would be reported as '${names[0]}': give the two files different names"

out=$root/target/bench/compare-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
say() { printf '[compare %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

declare -a trees
cleanup() {
  local tree
  for tree in "${trees[@]+"${trees[@]}"}"; do git -C "$root" worktree remove --force "$tree" 2>/dev/null || true; done
}
trap cleanup EXIT

for i in 0 1; do
  rev=${revs[$i]} sha=${shas[$i]}
  if [ "$i" = 1 ] && [ "$sha" = "${shas[0]}" ]; then
    trees+=("${trees[0]}")
    continue
  fi
  tree=$out/tree-$sha
  git -C "$root" worktree add --detach -q "$tree" "$sha"
  trees+=("$tree")
  say "build $rev ($sha): mvn -Dmaven.test.skip=true -DskipTlsSuite=true package (logs: build-$sha.log)"
  mvn -B -q -f "$tree/pom.xml" -Dmaven.test.skip=true -DskipTlsSuite=true package >"$out/build-$sha.log" 2>&1 \
    || { tail -n 20 "$out/build-$sha.log" >&2; die "building $rev failed"; }
done

# Each side's runs, one directory per round, listed in sides/<i>.
mkdir -p "$out/sides"
for round in $(seq 1 "$rounds"); do
  order=(0 1); [ $((round % 2)) -eq 0 ] && order=(1 0)
  for i in "${order[@]}"; do
    say "round $round/$rounds: ${names[$i]}"
    log=$out/run-$round-$i.log
    KODIAK_HOME=${trees[$i]} "$root/bin/bench.sh" throughput --targets kodiak,nginx --no-scale --reps 1 \
      --duration "$duration" --payloads "$payloads" --concurrency "$concurrency" \
      ${confs[$i]:+--kodiak-conf "${confs[$i]}"} >"$log" 2>&1 \
      || { tail -n 20 "$log" >&2; die "bin/bench.sh throughput failed (see $log)"; }
    dir=$(sed -n 's/^report: \(.*\)\/report.md$/\1/p' "$log" | tail -n 1)
    [ -f "$dir/runs.jsonl" ] || die "no runs.jsonl from the run logged in $log"
    echo "$dir" >>"$out/sides/$i"
  done
done

# merge_rounds DIR...: the rounds of one side as one run, each round's rows with the round as their
# repetition (jq: bin/bench.sh throughput installed it).
merge_rounds() {
  local dir round=0
  for dir in "$@"; do
    round=$((round + 1))
    jq -c --argjson round "$round" '.repetition = $round' "$dir/runs.jsonl"
  done
}

sides=("$out/a" "$out/b")
for i in 0 1; do
  mapfile -t dirs <"$out/sides/$i"
  mkdir -p "${sides[$i]}"
  merge_rounds "${dirs[@]}" >"${sides[$i]}/runs.jsonl"
  "$root/bin/bench.sh" throughput --report "${sides[$i]}" >"$out/report-$i.log" 2>&1 \
    || { tail -n 20 "$out/report-$i.log" >&2; die "the report of ${names[$i]}'s runs failed (see $out/report-$i.log)"; }
done
report_tool compare "${sides[0]}/results.json" "${sides[1]}/results.json" --out-dir "$out" \
  --label-a "${names[0]}" --label-b "${names[1]}" >/dev/null || die "bench/report could not compare the two sides"
say "${rounds} round(s) of $*: compare.md and compare.html in $out; each side's own report in a/ and b/"
cat "$out/compare.md"
