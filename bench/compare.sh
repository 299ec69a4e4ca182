#!/usr/bin/env bash
# End-to-end comparison on a make-demo dataset at 1918x1280, all in one run
# so the ratios share the machine's state. Repeats, alternating:
#   segfeed bench --decode-only --baseline   (all cores; the decode bound on the
#                                            same threads and the naive OpenCV
#                                            loop, measured in the same process)
#   segfeed bench --threads 1
#   segfeed bench --no-augment
# and prints medians and the ratios issue 7 targets. Then the memory check:
# peak RSS with 200 vs 2000 pairs, against `segfeed plan`.
#
#   bench/compare.sh [--runs N] [--pairs N] [--mask-rows R] [--rss]
#
# --mask-rows sequential|interlaced|mixed is make-demo's GIF row order
# (default sequential). SEGFEED_BIN overrides the segfeed binary measured.
#
# Needs a release build (scripts/dev.sh bench makes one). Datasets are made
# once under $SEGFEED_CACHE_DIR (default ~/.cache/segfeed).
set -euo pipefail
export LC_ALL=C  # awk and printf agree on the decimal point
cd "$(dirname "${BASH_SOURCE[0]}")/.."
segfeed=${SEGFEED_BIN:-build/release/src/cli/segfeed}
runs=5 pairs=200 rss=false mask_rows=sequential
while (($#)); do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --pairs) pairs="$2"; shift 2 ;;
    --mask-rows) mask_rows="$2"; shift 2 ;;
    --rss) rss=true; shift ;;
    *) echo "usage: bench/compare.sh [--runs N] [--pairs N] [--mask-rows R] [--rss]" >&2; exit 2 ;;
  esac
done
[[ -x $segfeed ]] || { echo "build first: scripts/dev.sh bench" >&2; exit 1; }
cache="${SEGFEED_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/segfeed}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

dataset() {  # dataset N -> folder with N demo pairs, made once
  local dir="$cache/compare-$1"
  [[ $mask_rows == sequential ]] || dir="$dir-$mask_rows"
  if [[ ! -d $dir/train_masks ]]; then
    rm -rf "$dir.partial" &&
      $segfeed make-demo "$dir.partial" --count "$1" --mask-rows "$mask_rows" >&2 &&
      mv "$dir.partial" "$dir"
  fi
  cat "$dir"/train/* "$dir"/train_masks/* >/dev/null  # into the page cache
  echo "$dir"
}
field() {  # field FILE KEY -> the number; fails when the report lacks KEY
  local value
  value=$(grep -o "\"$2\":[0-9.e+-]*" "$1" | head -1 | cut -d: -f2)
  [[ -n $value ]] || { echo "compare.sh: no \"$2\" in $1" >&2; exit 1; }
  echo "$value"
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

data="$(dataset "$pairs")"
echo "dataset: $pairs pairs at 1918x1280, $mask_rows masks ($data); $(nproc) cores; $runs runs"
for run in $(seq "$runs"); do
  $segfeed bench --data "$data" --decode-only --baseline --json "$work/all.$run.json" >/dev/null
  $segfeed bench --data "$data" --threads 1 --json "$work/one.$run.json" >/dev/null
  $segfeed bench --data "$data" --no-augment --json "$work/noaug.$run.json" >/dev/null
  echo "run $run: $(field "$work/all.$run.json" samples_per_s) samples/s"
done
all=$(for f in "$work"/all.*.json; do field "$f" samples_per_s; done | median)
decode=$(for f in "$work"/all.*.json; do field "$f" decode_only_samples_per_s; done | median)
baseline=$(for f in "$work"/all.*.json; do field "$f" baseline_samples_per_s; done | median)
one=$(for f in "$work"/one.*.json; do field "$f" samples_per_s; done | median)
noaug=$(for f in "$work"/noaug.*.json; do field "$f" samples_per_s; done | median)
cat <<REPORT

| measurement (median of $runs runs)         | samples/s |
|--------------------------------------------|-----------|
| segfeed bench, all cores                   | $all |
| decode only (read + decode), same threads  | $decode |
| naive OpenCV loop, 1 thread                | $baseline |
| segfeed bench --threads 1                  | $one |
| segfeed bench --no-augment                 | $noaug |

| ratio                                       | value | target |
|---------------------------------------------|-------|--------|
| segfeed / decode-only                       | $(ratio "$all" "$decode") | >= 0.90 |
| segfeed / naive baseline                    | $(ratio "$all" "$baseline") | >= 10 |
| all cores / 1 thread                        | $(ratio "$all" "$one") | >= 1.8 (2 cores) |
| augment on / --no-augment                   | $(ratio "$all" "$noaug") | >= 0.85 |
REPORT

# Where the time goes, from the all-cores runs' own stage timers: thread
# milliseconds per sample (median over runs) and each stage's share of the
# work; the wait is what the consumer spent blocked in Next() per batch.
# make-demo's photos are JPEGs and its masks GIFs: the decode stages of
# other formats are 0 here.
stages="read decode_photo_jpeg decode_mask_gif warp jitter convert"
per_sample() {  # per_sample KEY -> median over runs of KEY seconds / samples loaded, in ms
  for f in "$work"/all.*.json; do
    awk -v s="$(field "$f" "$1")" -v n="$(field "$f" samples_loaded)" 'BEGIN {printf "%.4f\n", 1000 * s / n}'
  done | median
}
declare -A stage_ms
total_ms=0
for stage in $stages; do
  stage_ms[$stage]=$(per_sample "$stage")
  total_ms=$(awk -v a="$total_ms" -v b="${stage_ms[$stage]}" 'BEGIN {print a + b}')
done
wait_ms=$(for f in "$work"/all.*.json; do
  awk -v s="$(field "$f" consumer_wait)" -v n="$(field "$f" batches_delivered)" 'BEGIN {printf "%.3f\n", 1000 * s / n}'
done | median)
echo
echo "| stage (all cores, median of $runs runs) | ms per sample (thread time) | share |"
echo "|-----------------------------------------|-----------------------------|-------|"
for stage in $stages; do
  printf '| %-39s | %27.3f | %4.1f%% |\n' "$stage" "${stage_ms[$stage]}" \
    "$(awk -v a="${stage_ms[$stage]}" -v t="$total_ms" 'BEGIN {print 100 * a / t}')"
done
printf '| %-39s | %27.3f |       |\n' "total" "$total_ms"
echo "consumer wait in Next(): $wait_ms ms per batch"

if $rss; then
  small="$(dataset 200)" large="$(dataset 2000)"
  $segfeed bench --data "$small" --epochs 1 --json "$work/rss-small.json" >/dev/null
  $segfeed bench --data "$large" --epochs 1 --json "$work/rss-large.json" >/dev/null
  planned=$($segfeed plan --data "$small" --json "$work/plan.json" >/dev/null && field "$work/plan.json" total_bytes)
  rss_small=$(field "$work/rss-small.json" peak_rss_bytes)
  rss_large=$(field "$work/rss-large.json" peak_rss_bytes)
  cat <<REPORT

| memory                                      | MiB |
|---------------------------------------------|-----|
| peak RSS, 200 pairs                         | $(awk -v b="$rss_small" 'BEGIN {printf "%.1f", b / 1048576}') |
| peak RSS, 2000 pairs                        | $(awk -v b="$rss_large" 'BEGIN {printf "%.1f", b / 1048576}') |
| plan total (pool + scratch)                 | $(awk -v b="$planned" 'BEGIN {printf "%.1f", b / 1048576}') |
| 2000 / 200 pairs                            | $(ratio "$rss_large" "$rss_small") (target < 1.10) |
| peak RSS - plan total (200 pairs)           | $(awk -v a="$rss_small" -v b="$planned" 'BEGIN {printf "%.1f", (a - b) / 1048576}') (target <= 64) |
REPORT
fi
