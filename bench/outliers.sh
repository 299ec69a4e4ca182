#!/usr/bin/env bash
# What outlier files cost a run: the same make-demo dataset at 1918x1280
# with and without a set of outliers (JPEG headers claiming 10000x10000,
# baseline and progressive, a GIF mask on a 10000x10000 screen, a JPEG-
# looking junk file just under max_file_bytes and a junk file over it),
# `segfeed bench --on-error skip`, alternating, medians of the epoch time
# (three epochs; a bad file is read once) and peak RSS against the plan.
#
#   bench/outliers.sh [--runs N] [--pairs N] [--threads N]
#
# Needs a release build (scripts/dev.sh bench makes one).
set -euo pipefail
export LC_ALL=C
cd "$(dirname "${BASH_SOURCE[0]}")/.."
segfeed=build/release/src/cli/segfeed
runs=5 pairs=100 threads=0
while (($#)); do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --pairs) pairs="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    *) echo "usage: bench/outliers.sh [--runs N] [--pairs N] [--threads N]" >&2; exit 2 ;;
  esac
done
[[ -x $segfeed ]] || { echo "build first: scripts/dev.sh bench" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

$segfeed make-demo "$work/clean" --count "$pairs" >&2
cp -r "$work/clean" "$work/outliers"
# Outliers made from the dataset's own first pair, with the standard library.
/usr/bin/python3 - "$work/outliers" <<'PY'
import os, sys, struct
root = sys.argv[1]
images, masks = os.path.join(root, "train"), os.path.join(root, "train_masks")
first = sorted(os.listdir(images))[0][:-4]
jpeg = open(os.path.join(images, first + ".jpg"), "rb").read()
gif = open(os.path.join(masks, first + "_mask.gif"), "rb").read()

def with_frame_size(data, width, height, marker):
    data, pos = bytearray(data), 2
    while data[pos + 1] not in (0xC0, 0xC1, 0xC2):
        pos += 2 + struct.unpack(">H", data[pos + 2:pos + 4])[0]
    data[pos + 1] = marker
    data[pos + 5:pos + 9] = struct.pack(">HH", height, width)
    return bytes(data)

def write_pair(stem, image, mask):
    open(os.path.join(images, stem + ".jpg"), "wb").write(image)
    open(os.path.join(masks, stem + "_mask.gif"), "wb").write(mask)

write_pair("zz_outlier_baseline", with_frame_size(jpeg, 10000, 10000, 0xC0), gif)
write_pair("zz_outlier_progressive", with_frame_size(jpeg, 10000, 10000, 0xC2), gif)
write_pair("zz_outlier_gif_screen", jpeg, gif[:6] + struct.pack("<HH", 10000, 10000) + gif[10:])
write_pair("zz_outlier_junk", b"\xff\xd8\xff\xe0" + os.urandom(16 * 2**20 - 5), gif)
write_pair("zz_outlier_too_big", b"\xff\xd8\xff\xe0" + bytes(16 * 2**20 + 1), gif)
PY
cat "$work"/*/train/* "$work"/*/train_masks/* >/dev/null  # into the page cache

run() {  # run DATASET -> "seconds_of_all_epochs peak_rss_mib plan_mib skipped"
  $segfeed bench --data "$work/$1" --on-error skip --epochs 3 --threads "$threads" --json "$work/report.json" >/dev/null
  /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
print(sum(r["epoch_seconds"]), r["peak_rss_bytes"]/2**20, r["plan_total_bytes"]/2**20, len(r["skipped_files"]))' "$work/report.json"
}
: >"$work/clean.txt"; : >"$work/outliers.txt"
for ((i = 0; i < runs; i++)); do
  run clean >>"$work/clean.txt"
  run outliers >>"$work/outliers.txt"
done
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
for set in clean outliers; do
  printf '%-9s 3 epochs %.3f s, peak RSS %.1f MiB of a %.1f MiB plan, %d files skipped (medians of %d runs)\n' "$set" \
    "$(cut -d' ' -f1 "$work/$set.txt" | median)" "$(cut -d' ' -f2 "$work/$set.txt" | median)" \
    "$(cut -d' ' -f3 "$work/$set.txt" | median)" "$(cut -d' ' -f4 "$work/$set.txt" | median)" "$runs"
done
