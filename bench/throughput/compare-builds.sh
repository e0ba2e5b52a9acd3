#!/usr/bin/env bash
# bench/throughput/compare-builds.sh [--rounds N] [--duration S] [--payloads LIST] [--concurrency LIST]
#                                    [--conf-a FILE] [--conf-b FILE] REV_A [REV_B]
# — whether a change to Kodiak bought anything: two git revisions of Kodiak, or one revision under two
# configurations, each measured against nginx in the same bin/bench.sh throughput run (matrix only,
# targets kodiak and nginx), the two alternating run by run (A B, then B A, ...). Compares each side's
# Kodiak/nginx ratios, so that the machine's drift between runs cancels out. Defaults: 3 rounds, 8 s
# per cell, 512 B and 10 KB × 80 and 640 connections. Each revision is built from a git worktree under
# the run's directory. --conf-a/--conf-b: HOCON included after the bench's Kodiak config for that side
# (bin/bench.sh throughput --kodiak-conf), e.g. another io-strategy; REV_B defaults to REV_A then.
# Writes target/bench/compare-<timestamp>/{report.md,cells.tsv} and prints the report.
set -euo pipefail
root=$(cd -P "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
cd "$root"

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
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
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
  say "build $rev ($sha): mvn -Dmaven.test.skip=true package (logs: build-$sha.log)"
  mvn -B -q -f "$tree/pom.xml" -Dmaven.test.skip=true package >"$out/build-$sha.log" 2>&1 \
    || { tail -n 20 "$out/build-$sha.log" >&2; die "building $rev failed"; }
done

# One line per revision, round and cell: Kodiak's and nginx's CPU µs/request, req/s and p99 ms.
cells=$out/cells.tsv
printf 'build\tround\tpayload\tconnections\tkodiak_cpu_us\tnginx_cpu_us\tkodiak_rps\tnginx_rps\tkodiak_p99_ms\tnginx_p99_ms\n' >"$cells"
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
    [ -f "$dir/runs.tsv" ] || die "no runs.tsv from the run logged in $log"
    awk -F'\t' -v OFS='\t' -v build="${names[$i]}" -v round="$round" '
      NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
      $col["phase"] == "matrix" && $col["requests"] > 0 {
        key = $col["payload"] OFS $col["connections"]
        cpu[key, $col["target"]] = ($col["proxy_user_ticks"] + $col["proxy_sys_ticks"]) / $col["hz"] * 1e6 / $col["requests"]
        rps[key, $col["target"]] = $col["requests"] / ($col["duration_us"] / 1e6)
        p99[key, $col["target"]] = $col["p99_us"] / 1000
        keys[key] = 1
      }
      END {
        for (key in keys)
          printf "%s\t%s\t%s\t%.1f\t%.1f\t%.0f\t%.0f\t%.2f\t%.2f\n", build, round, key,
            cpu[key, "kodiak"], cpu[key, "nginx"], rps[key, "kodiak"], rps[key, "nginx"],
            p99[key, "kodiak"], p99[key, "nginx"]
      }' "$dir/runs.tsv" >>"$cells"
  done
done

# Medians with min-max per build and cell, over the rounds.
summary() { # BUILD PAYLOAD CONNS EXPR-COLUMN-AWK
  awk -F'\t' -v b="$1" -v p="$2" -v c="$3" "NR > 1 && \$1 == b && \$3 == p && \$4 == c { print $4 }" "$cells" |
    sort -g | awk '{ v[NR] = $1 } END {
      if (NR == 0) { print "-"; exit }
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.2f (%.2f–%.2f)", m, v[1], v[NR] }'
}
{
  echo "# Kodiak builds compared, each against nginx in the same run"
  echo
  echo "Command: \`bench/throughput/compare-builds.sh --rounds $rounds --duration $duration --payloads $payloads --concurrency $concurrency${confs[0]:+ --conf-a ${confs[0]}}${confs[1]:+ --conf-b ${confs[1]}} $1 $2\`,"
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); ${names[0]} and ${names[1]} alternating, $rounds round(s), ${duration} s per cell."
  echo "Medians over the rounds (min–max). Ratios are Kodiak's over nginx's in the same run."
  echo
  echo "| payload × conns | build | CPU/request Kodiak/nginx | Kodiak CPU µs/request | req/s Kodiak/nginx | p99 Kodiak − nginx, ms |"
  echo "|---|---|---:|---:|---:|---:|"
  awk -F'\t' 'NR > 1 { print $3 "\t" $4 }' "$cells" | sort -u -t$'\t' -k1,1n -k2,2n | while IFS=$'\t' read -r p c; do
    for name in "${names[@]}"; do
      echo "| $p B × $c | $name | $(summary "$name" "$p" "$c" '$5 / $6') | $(summary "$name" "$p" "$c" '$5') |" \
           "$(summary "$name" "$p" "$c" '$7 / $8') | $(summary "$name" "$p" "$c" '$9 - $10') |"
    done
  done
  echo
  echo "Per-run figures: cells.tsv; each run's own report: run-ROUND-INDEX.log."
} >"$out/report.md"
cat "$out/report.md"
