#!/usr/bin/env bash
# A/B of two segfeed binaries on one dataset, alternating A B A B ... so
# both see the same machine load (other guests, builds). Each run is
#   segfeed bench --data DIR --decode-only --json ... [extra bench options]
# which measures the loader and, in the same process and threads, the
# decode-only bound; the ratio of the two is the number issue 16 targets.
# Prints medians per binary: throughput, the decode-only bound, their ratio
# (median of the per-run ratios), each stage's thread time per sample in ms
# (decode is the photos', JPEG or PNG; total adds read, the masks' decode
# and convert) and peak RSS.
#
#   bench/ab.sh [--runs N] [--a-options "..."] [--b-options "..."] --data DIR A_BINARY B_BINARY
#               [-- bench options for both]
#
# --a-options and --b-options are added to one side's runs only (split at
# spaces): one binary against itself with another option, e.g.
#   bench/ab.sh --data DIR --b-options "--decode-colour ycbcr" segfeed segfeed
#
# Example: a build before a change against the current one, float32, 2
# threads (the default), then the same with --dtype uint8 --mask-dtype uint8.
set -euo pipefail
export LC_ALL=C
runs=5 data="" a_options="" b_options=""
while (($#)); do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --data) data="$2"; shift 2 ;;
    --a-options) a_options="$2"; shift 2 ;;
    --b-options) b_options="$2"; shift 2 ;;
    --) shift; break ;;
    *) [[ -z ${a:-} ]] && a="$1" || b="$1"; shift ;;
  esac
done
[[ -n $data && -n ${a:-} && -n ${b:-} ]] ||
  { echo "usage: bench/ab.sh [--runs N] [--a-options S] [--b-options S] --data DIR A B [-- bench options]" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat "$data"/train/* "$data"/train_masks/* >/dev/null  # into the page cache
field() { grep -o "\"$2\":[0-9.e+-]*" "$1" | head -1 | cut -d: -f2; }
# Reports of builds before the field lists named it "loaded": A/B against them works too.
samples_loaded() { local n; n=$(field "$1" samples_loaded); echo "${n:-$(field "$1" loaded)}"; }
# A report's decode seconds for photos and for masks, whatever their formats;
# reports of builds before the stages were named by format have one field each.
photo_decode() {
  awk -v j="$(field "$1" decode_photo_jpeg)" -v r="$(field "$1" decode_photo_jpeg_roi)" \
    -v p="$(field "$1" decode_photo_png)" -v i="$(field "$1" decode_image)" \
    'BEGIN {print j + r + p + i}'
}
mask_decode() {
  awk -v p="$(field "$1" decode_mask_png)" -v g="$(field "$1" decode_mask_gif)" \
    -v m="$(field "$1" decode_mask)" 'BEGIN {print p + g + m}'
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
for run in $(seq "$runs"); do
  for side in a b; do
    bin=${!side}
    side_options=${side}_options
    # shellcheck disable=SC2086 # one side's options, split at spaces on purpose
    "$bin" bench --data "$data" --decode-only --json "$work/$side.$run.json" "$@" ${!side_options} >/dev/null
  done
done
echo "options: ${*:-(defaults)}; a: ${a_options:-(none)}; b: ${b_options:-(none)}; $runs runs alternating; medians"
printf '%-4s %10s %12s %7s %7s %7s %7s %7s %7s %9s\n' side samples/s decode-only ratio \
  decode warp jitter convert total "rss MiB"
for side in a b; do
  rates=$(for f in "$work"/$side.*.json; do field "$f" samples_per_s; done | median)
  bound=$(for f in "$work"/$side.*.json; do field "$f" decode_only_samples_per_s; done | median)
  ratio=$(for f in "$work"/$side.*.json; do
    awk -v a="$(field "$f" samples_per_s)" -v b="$(field "$f" decode_only_samples_per_s)" \
      'BEGIN {printf "%.4f\n", a / b}'
  done | median)
  stage() {  # ms of thread time per sample, median over runs; $1: a field, or photo_decode
    for f in "$work"/$side.*.json; do
      if [[ $1 == photo_decode ]]; then s=$(photo_decode "$f"); else s=$(field "$f" "$1"); fi
      awk -v s="$s" -v n="$(samples_loaded "$f")" 'BEGIN {printf "%.4f\n", 1000 * s / n}'
    done | median
  }
  total=$(for f in "$work"/$side.*.json; do
    awk -v n="$(samples_loaded "$f")" -v r="$(field "$f" read)" -v i="$(photo_decode "$f")" \
      -v m="$(mask_decode "$f")" -v w="$(field "$f" warp)" -v j="$(field "$f" jitter)" \
      -v c="$(field "$f" convert)" 'BEGIN {printf "%.4f\n", 1000 * (r + i + m + w + j + c) / n}'
  done | median)
  rss=$(for f in "$work"/$side.*.json; do
    awk -v b="$(field "$f" peak_rss_bytes)" 'BEGIN {printf "%.1f\n", b / 1048576}'
  done | median)
  printf '%-4s %10.1f %12.1f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %9.1f\n' "$side" "$rates" "$bound" \
    "$ratio" "$(stage photo_decode)" "$(stage warp)" "$(stage jitter)" "$(stage convert)" "$total" "$rss"
done
