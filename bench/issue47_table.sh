#!/usr/bin/env bash
# Issue 47 end to end: the acceptance table, before and after, in one run.
#
#   bench/issue47_table.sh [--runs N] [--no-callgrind] BEFORE_CLI AFTER_CLI OUTDIR
#
# BEFORE_CLI and AFTER_CLI are two builds of the segfeed CLI (BENCHMARKS.md's
# table compares the build before issue 47's work, 9a7f026, with the one
# after). OUTDIR keeps the data sets between calls (OUTDIR/sets/, each made
# once: a set is rewritten only when the command that makes it changes) and
# this call's logs (OUTDIR/runs/, emptied at the start); the table is printed
# and written to OUTDIR/table.md.
#
# The sets: make-demo's 20 Carvana-like pairs (1918x1280 JPEG 4:2:0 + GIF),
# a VOC-like set by Pillow (bench/voc_like.py, 200 pairs of 500x375 JPEG +
# palette PNG) and a Cityscapes-like set by Pillow (bench/png_sets.py
# cityscapes, 30 pairs of 2048x1024 RGB PNG + grey labelIds PNG). The
# recipes: the stretch (bench's defaults) and the mmseg-like random scale
# and crop, on the label sets with and without --crop-max-class-ratio 0.75.
#
# Each pair (set, recipe) runs
#   - wall: `bench --threads 2`, before and after in turn (one of each
#     with --digest as a warm-up, then N of each: before, after, before,
#     after ...), bench's samples/s;
#     the speed-up is the median of the N pairwise ratios after / before,
#     which keeps it meaningful when the machine's speed drifts;
#   - instructions: one `bench --threads 1 --epochs 1` of each under
#     callgrind, which do not depend on the load: the whole process, and
#     the samples' own work (SampleLoader::LoadPair and what it calls:
#     read, decode, warp, jitter, conversion into the batch), which leaves
#     out the start-up (the dynamic loader, the plan's header reads) that
#     bench's samples/s leaves out too by timing the epochs after the
#     first; the speed-up is before / after, and the goals are judged by
#     the samples' work. Two of these run at a time; their callgrind files
#     stay in OUTDIR/runs/ for callgrind_annotate.
# The warm-up runs of a pair must print the same digest, before and after:
# the script stops with an error (exit 1) at the first pair whose do not.
# The measured runs hash nothing: --digest's hashing of every batch byte
# (on the consumer's thread, the same in both builds) is a quarter of the
# VOC-like recipe's instructions, which would pull every ratio toward 1.
#
# Needs bash, valgrind (callgrind_annotate included) and a Python 3 with NumPy, Pillow and OpenCV
# (Debian's python3-numpy, python3-pil, python3-opencv; PYTHON=... picks one).
# On 2 shared cores a call with --runs 3 took 5.5 minutes at a load average
# of 5-6 and 14 at 15-17, most of it callgrind's (the sets, made once: 3).
set -euo pipefail
export LC_ALL=C

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

RUNS=5
CALLGRIND=1
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --runs) RUNS=$2; shift 2 ;;
    --no-callgrind) CALLGRIND=0; shift ;;
    --help) usage ;;
    *) echo "unknown option $1" >&2; usage ;;
  esac
done
[[ $# -eq 3 ]] || usage
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "--runs wants a positive count, not '$RUNS'" >&2; exit 2; }

die() { echo "issue47_table: $*" >&2; exit 1; }

BEFORE=$(realpath "$1")
AFTER=$(realpath "$2")
mkdir -p "$3"
OUT=$(realpath "$3")
for cli in "$BEFORE" "$AFTER"; do
  [[ -x $cli ]] || die "$cli is not an executable segfeed CLI"
done
if [[ $CALLGRIND -eq 1 ]]; then
  for tool in valgrind callgrind_annotate; do
    command -v $tool > /dev/null || die "$tool is not installed (or pass --no-callgrind)"
  done
fi
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)

# A Python that can write the sets: PYTHON if given, else the first that has
# the three modules (a virtual environment's python3 may lack them).
has_modules() { "$1" -c 'import cv2, numpy, PIL' 2> /dev/null; }
if [[ -z ${PYTHON:-} ]]; then
  for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" > /dev/null && has_modules "$candidate"; then
      PYTHON=$candidate
      break
    fi
  done
fi
if [[ -z ${PYTHON:-} ]] || ! has_modules "$PYTHON"; then
  die "no Python with NumPy, Pillow and OpenCV (set PYTHON=...)"
fi

# ---- the sets, made once -------------------------------------------------
SETS=$OUT/sets
mkdir -p "$SETS"
# make_set NAME COMMAND...: COMMAND writes the set into the folder given as
# its last argument; a set whose recorded command matches is reused.
make_set() {
  local name=$1 dir=$SETS/$1
  shift
  local recipe="$* $name"
  if [[ -f $dir/.made_by && $(cat "$dir/.made_by") == "$recipe" ]]; then
    echo "set $name: reused ($dir)" >&2
    return
  fi
  echo "set $name: writing ($recipe)" >&2
  rm -rf "$dir" "$dir.partial"
  "$@" "$dir.partial" > "$SETS/$name.log" 2>&1 || die "writing set $name failed: see $SETS/$name.log"
  echo "$recipe" > "$dir.partial/.made_by"
  mv "$dir.partial" "$dir"
}
# The bench scripts' own output, not this one's: the set is the same
# whichever segfeed wrote it (make-demo's output depends only on options).
make_demo_20() { "$AFTER" make-demo "$1" --count 20; }
make_set demo20 make_demo_20
make_set voc200 "$PYTHON" "$BENCH_DIR/voc_like.py" --count 200 --
make_set cs30 "$PYTHON" "$BENCH_DIR/png_sets.py" cityscapes --pairs 30 --

# ---- the pairs -----------------------------------------------------------
MMSEG="--resize keep_ratio --scale 0.5,2.0 --rotation 0 --flip-ud 0"
RATIO="--crop-max-class-ratio 0.75"
# id|set|recipe|bench arguments|wall epochs (the first is bench's warm-up)|goal
# Goals (issue 47's acceptance): a speed-up of at least the figure, or
# "same" (the stretch unchanged: within 2% by instructions).
PAIRS=(
  "carvana_stretch|make-demo 20 (Carvana-like)|stretch|--data $SETS/demo20|4|same"
  "carvana_mmseg|make-demo 20 (Carvana-like)|mmseg-like|--data $SETS/demo20 $MMSEG|4|1.15"
  "voc_mmseg|VOC-like 200|mmseg-like|--data $SETS/voc200 --dataset voc --split trainval $MMSEG|3|1.3"
  "voc_mmseg_ratio|VOC-like 200|mmseg-like + ratio 0.75|--data $SETS/voc200 --dataset voc --split trainval $MMSEG $RATIO|3|1.3"
  "cs_mmseg|Cityscapes-like 30|mmseg-like|--data $SETS/cs30 --dataset cityscapes $MMSEG|2|2"
  "cs_mmseg_ratio|Cityscapes-like 30|mmseg-like + ratio 0.75|--data $SETS/cs30 --dataset cityscapes $MMSEG $RATIO|2|2"
)

RUNS_DIR=$OUT/runs
rm -rf "$RUNS_DIR"
mkdir -p "$RUNS_DIR"
START=$(date +%s)
UPTIME_BEFORE=$(uptime)

# json_field FILE KEY: one top-level field of bench's --json report.
json_field() {
  "$PYTHON" -c 'import json, sys; v = json.load(open(sys.argv[1]))[sys.argv[2]]; print("" if v is None else v)' "$1" "$2"
}

# wall_run ID BUILD INDEX ARGS EPOCHS: one bench run, with --digest for
# the warm-up (INDEX 0); appends "BUILD INDEX samples/s digest" (digest -
# when not asked for).
wall_run() {
  local id=$1 build=$2 index=$3 args=$4 epochs=$5
  local digest_flag=""
  [[ $index -eq 0 ]] && digest_flag=--digest
  local cli=$BEFORE
  [[ $build == after ]] && cli=$AFTER
  local base=$RUNS_DIR/$id.$build.$index
  # shellcheck disable=SC2086  # ARGS is a list of words
  "$cli" bench $args --epochs "$epochs" --threads 2 $digest_flag --json "$base.json" > "$base.log" 2>&1 ||
    die "$id ($build, run $index) failed: see $base.log"
  local sps digest
  sps=$(json_field "$base.json" samples_per_s)
  digest=-
  [[ -n $digest_flag ]] && digest=$(json_field "$base.json" digest)
  [[ -n $sps && -n $digest ]] || die "$id ($build, run $index) printed no samples/s or digest: $base.json"
  echo "$build $index $sps $digest" >> "$RUNS_DIR/$id.wall"
}

# same_digests FILE COLUMN WHAT: every line's digest (that column) equal.
same_digests() {
  local count
  count=$(awk -v c="$2" '{print $c}' "$1" | sort -u | wc -l)
  [[ $count -eq 1 ]] || die "DIGEST MISMATCH in $3: $(awk -v c="$2" '{printf "%s=%s ", $1, $c}' "$1")"
}

for pair in "${PAIRS[@]}"; do
  IFS='|' read -r id _ _ args epochs _ <<< "$pair"
  echo "wall: $id" >&2
  wall_run "$id" before 0 "$args" "$epochs"
  wall_run "$id" after 0 "$args" "$epochs"
  same_digests "$RUNS_DIR/$id.wall" 4 "$id"
  for ((i = 1; i <= RUNS; i++)); do
    wall_run "$id" before "$i" "$args" "$epochs"
    wall_run "$id" after "$i" "$args" "$epochs"
  done
done

# callgrind_run ID BUILD ARGS: one thread, one epoch, the whole process.
callgrind_run() {
  local id=$1 build=$2 args=$3
  local cli=$BEFORE
  [[ $build == after ]] && cli=$AFTER
  local base=$RUNS_DIR/$id.$build.callgrind
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --callgrind-out-file="$base.out" --log-file="$base.valgrind" \
    "$cli" bench $args --epochs 1 --threads 1 > "$base.log" 2>&1 ||
    die "$id ($build) under callgrind failed: see $base.log and $base.valgrind"
  local instructions samples_work
  instructions=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$base.valgrind")
  [[ -n $instructions ]] || die "$id ($build) under callgrind: no instruction count in $base.valgrind"
  samples_work=$(callgrind_annotate --inclusive=yes "$base.out" |
    awk '/segfeed::pipeline::SampleLoader::LoadPair\(/ && !found { gsub(",", "", $1); print $1; found = 1 }')
  [[ -n $samples_work ]] || die "$id ($build): no SampleLoader::LoadPair in $base.out (renamed? see this script)"
  echo "$build $instructions $samples_work" > "$base.count"
}

if [[ $CALLGRIND -eq 1 ]]; then
  # Two at a time: the counts do not depend on the load.
  jobs_list=()
  for pair in "${PAIRS[@]}"; do
    IFS='|' read -r id _ _ args _ _ <<< "$pair"
    jobs_list+=("$id|before|$args" "$id|after|$args")
  done
  pids=()
  for job in "${jobs_list[@]}"; do
    IFS='|' read -r id build args <<< "$job"
    echo "callgrind: $id $build" >&2
    callgrind_run "$id" "$build" "$args" &
    pids+=($!)
    if [[ ${#pids[@]} -eq 2 ]]; then
      wait "${pids[0]}" || die "a callgrind run failed (its message is above)"
      pids=("${pids[1]}")
    fi
  done
  for pid in "${pids[@]}"; do wait "$pid" || die "a callgrind run failed (its message is above)"; done
  for pair in "${PAIRS[@]}"; do
    IFS='|' read -r id _ _ _ _ _ <<< "$pair"
    cat "$RUNS_DIR/$id.before.callgrind.count" "$RUNS_DIR/$id.after.callgrind.count" > "$RUNS_DIR/$id.callgrind"
  done
fi
UPTIME_AFTER=$(uptime)

# ---- the table -----------------------------------------------------------
printf '%s\n' "${PAIRS[@]}" > "$RUNS_DIR/pairs"
"$PYTHON" - "$RUNS_DIR" "$RUNS" "$CALLGRIND" > "$OUT/table.md" << 'EOF'
import pathlib
import statistics
import sys

runs_dir, runs, callgrind = pathlib.Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"


def wall(pair_id):
    rows = [line.split() for line in (runs_dir / f"{pair_id}.wall").read_text().splitlines()]
    measured = {(b, int(i)): float(s) for b, i, s, _ in rows if i != "0"}
    before = [measured["before", i] for i in range(1, runs + 1)]
    after = [measured["after", i] for i in range(1, runs + 1)]
    ratios = [a / b for a, b in zip(after, before)]
    return before, after, ratios, rows[0][3]  # the warm-up's digest


def instructions(pair_id):
    rows = [line.split() for line in (runs_dir / f"{pair_id}.callgrind").read_text().splitlines()]
    counts = {b: (int(whole), int(samples)) for b, whole, samples in rows}
    return counts["before"], counts["after"]


def met(goal, speedup, tolerance):
    if goal == "same":
        return "yes" if abs(speedup - 1) <= tolerance else "no"
    return "yes" if speedup >= float(goal) else "no"


pairs = [line.split("|") for line in (runs_dir / "pairs").read_text().splitlines()]
print("| set | recipe | samples/s, before → after | speed-up, wall | "
      "instructions, whole process | speed-up | instructions, the samples' work | speed-up "
      "| digest (before = after) | goal | met (instructions) | met (wall) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|---|---|---|")
summary = {}
for pair_id, set_name, recipe, _, _, goal in pairs:
    before, after, ratios, digest = wall(pair_id)
    wall_speedup = statistics.median(ratios)
    cells = [set_name, recipe,
             f"{statistics.median(before):.1f} → {statistics.median(after):.1f}",
             f"{wall_speedup:.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"]
    if callgrind:
        (whole_before, samples_before), (whole_after, samples_after) = instructions(pair_id)
        samples_speedup = samples_before / samples_after
        cells += [f"{whole_before / 1e6:.0f} M → {whole_after / 1e6:.0f} M",
                  f"{whole_before / whole_after:.3f}x",
                  f"{samples_before / 1e6:.0f} M → {samples_after / 1e6:.0f} M",
                  f"{samples_speedup:.3f}x", digest]
        verdict_instr = met(goal, samples_speedup, 0.02)
    else:
        samples_after = None
        cells += ["", "", "", "", digest]
        verdict_instr = ""
    goal_text = "unchanged" if goal == "same" else f">= {goal}x"
    cells += [goal_text, verdict_instr, met(goal, wall_speedup, 0.10)]
    print("| " + " | ".join(cells) + " |")
    summary[pair_id] = (statistics.median(after), samples_after)

print()
print("Class-ratio crops in the after build (part 3's goal: at least 0.85 of the recipe's "
      "speed without the ratio):")
print()
print("| set | with / without, wall (medians) | with / without, the samples' instructions |")
print("|---|---:|---:|")
for pair_id, set_name, *_ in pairs:
    if not pair_id.endswith("_ratio"):
        continue
    with_ratio, without = summary[pair_id], summary[pair_id.removesuffix("_ratio")]
    instr = f"{without[1] / with_ratio[1]:.2f}" if callgrind else ""
    print(f"| {set_name} | {with_ratio[0] / without[0]:.2f} | {instr} |")
EOF

{
  echo
  echo "Runs: $RUNS of each build per pair (wall), $((${#PAIRS[@]} * 2 * (RUNS + 1))) bench runs in all," \
    "$(($(date +%s) - START)) s."
  echo "uptime before: $UPTIME_BEFORE"
  echo "uptime after:  $UPTIME_AFTER"
  echo
  echo "The after build's stages (thread-seconds, its last wall run of each pair):"
  for pair in "${PAIRS[@]}"; do
    IFS='|' read -r id set_name recipe _ _ _ <<< "$pair"
    echo
    echo "$set_name, $recipe:"
    echo '```'
    sed -n '/stages (thread-seconds/,/consumer waited/p' "$RUNS_DIR/$id.after.$RUNS.log"
    echo '```'
  done
} >> "$OUT/table.md"
cat "$OUT/table.md"
