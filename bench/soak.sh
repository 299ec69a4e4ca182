#!/usr/bin/env bash
# Soak under mutation: one long-lived `segfeed bench --on-error skip` over a
# 200-pair make-demo set for DURATION while a mutator truncates, corrupts,
# deletes, replaces by a folder and restores random files of it every
# 100 ms. Fails (exit status 1) if RSS, open fds or threads grow past their
# baseline maximum by more than 5%, if a sample whose files were good
# during its whole read differs from its reference bytes or is missing, if
# a good file is skipped, or if bench dies or stops early. RELIABILITY.md
# says what each check means and has the figures of real runs.
#
#   bench/soak.sh DURATION        # seconds, or with a unit: 90s, 10m, 1h
#
# Environment: SEGFEED (the binary, default the release build; an ASan
# build works the same), SOAK_VICTIMS (pairs the mutator may touch, default
# 50 of the 200: see RELIABILITY.md for why not all), SOAK_BASELINE_S (the
# growth baseline window, default 60 s, 30 s for runs under 5 minutes),
# SOAK_KEEP=1 keeps the work folder (logs, dataset) for a post-mortem.
#
# Needs a release build (scripts/dev.sh bench makes one) and python3.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() { echo "usage: bench/soak.sh DURATION (seconds, or 90s, 10m, 1h)" >&2; exit 2; }

# DURATION -> seconds.
parse_duration() {
  local text="$1"
  [[ $text =~ ^([0-9]+)([smh]?)$ ]] || usage
  local n="${BASH_REMATCH[1]}"
  case "${BASH_REMATCH[2]}" in
    m) echo $((n * 60)) ;;
    h) echo $((n * 3600)) ;;
    *) echo "$n" ;;
  esac
}

(($# == 1)) || usage
duration_s="$(parse_duration "$1")"
((duration_s > 0)) || usage
segfeed="${SEGFEED:-build/release/src/cli/segfeed}"
victims="${SOAK_VICTIMS:-50}"
pairs=200
# A minute of baseline leaves a CI run of 2 minutes almost nothing to judge.
baseline_s="${SOAK_BASELINE_S:-$((duration_s < 300 ? 30 : 60))}"
# Small samples and no augmentation: a sample's bytes then depend on its
# pair's bytes only, so one reference digest per pair checks every sample,
# replacements included; small makes many epochs, and many reads per minute.
threads=2
bench_options=(--on-error skip --no-augment --size 128 --batch 8 --threads "$threads" --seed 0)
[[ -x $segfeed ]] || { echo "build first: scripts/dev.sh bench (or set SEGFEED)" >&2; exit 1; }

work="$(mktemp -d)"
bench_pid="" mutator_pid=""
# Always: stop what this script started, by its pid, and remove the copy.
cleanup() {
  local pid
  for pid in "$bench_pid" "$mutator_pid"; do
    [[ -n $pid ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  done
  if [[ ${SOAK_KEEP:-} == 1 ]]; then echo "soak: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

make_dataset() {
  "$segfeed" make-demo "$work/pristine" --count "$pairs" --width 480 --height 320 >/dev/null
  cp -r "$work/pristine" "$work/data"
}

# Two unmutated epochs on the pristine copy: every pair's sample digest.
reference_run() {
  "$segfeed" bench --data "$work/pristine" "${bench_options[@]}" --epochs 2 \
    --sample-digests "$work/reference.jsonl" >"$work/reference.out"
}

# RSS (MiB), open fds and threads of $bench_pid every second, into proc.tsv
# as "seconds rss fds threads"; a line per minute on standard output.
sample_process() {
  local start="$EPOCHREALTIME" now elapsed rss threads fds next_minute=60
  while kill -0 "$bench_pid" 2>/dev/null; do
    now="$EPOCHREALTIME"
    elapsed="$(awk -v a="$start" -v b="$now" 'BEGIN { printf "%.1f", b - a }')"
    rss="$(awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$bench_pid/status" 2>/dev/null)" || break
    threads="$(awk '/^Threads:/ { print $2 }' "/proc/$bench_pid/status" 2>/dev/null)" || break
    fds="$(find "/proc/$bench_pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)"
    [[ -n $rss && -n $threads ]] || break
    echo "$elapsed $rss $fds $threads" >>"$work/proc.tsv"
    if (($(printf '%.0f' "$elapsed") >= next_minute)); then
      printf 'soak: %3d min: RSS %s MiB, fds %s, threads %s, %s sample lines, %s mutations\n' \
        $((next_minute / 60)) "$rss" "$fds" "$threads" "$(wc -l <"$work/samples.jsonl")" \
        "$(grep -c '"mutate"' "$work/mutations.jsonl" || true)"
      next_minute=$((next_minute + 60))
    fi
    sleep 1
  done
}

main() {
  echo "soak: ${duration_s} s, $pairs pairs ($victims mutated), baseline the first ${baseline_s} s, in $work"
  make_dataset
  reference_run
  : >"$work/mutations.jsonl"
  : >"$work/samples.jsonl"
  local started=$SECONDS
  "$segfeed" bench --data "$work/data" "${bench_options[@]}" --epochs 0 --duration "$duration_s" \
    --sample-digests "$work/samples.jsonl" --json "$work/report.json" >"$work/bench.out" 2>&1 &
  bench_pid=$!
  # The mutator starts once bench has listed the files (its first line comes
  # after the listing): a file missing from the listing would shift the
  # pair ids the check compares by.
  until [[ -s $work/samples.jsonl ]]; do
    kill -0 "$bench_pid" 2>/dev/null || break
    sleep 0.05
  done
  /usr/bin/python3 bench/soak.py mutate "$work/data" "$work/pristine" "$work/mutations.jsonl" \
    --victims "$victims" --interval 0.1 &
  mutator_pid=$!
  sample_process
  local bench_status=0
  wait "$bench_pid" || bench_status=$?
  bench_pid=""
  local elapsed=$((SECONDS - started))
  kill "$mutator_pid"
  wait "$mutator_pid" || { echo "soak: the mutator failed" >&2; exit 1; }
  mutator_pid=""
  sed -n '/^  stopped:/p; /^loaded /p' "$work/bench.out"
  /usr/bin/python3 bench/soak.py check --samples "$work/samples.jsonl" \
    --reference "$work/reference.jsonl" --mutations "$work/mutations.jsonl" \
    --proc "$work/proc.tsv" --root "$work/data" --pristine "$work/pristine" --baseline-s "$baseline_s" \
    --duration-s "$duration_s" --elapsed-s "$elapsed" --bench-status "$bench_status" \
    --victims "$victims" --threads "$threads"
}

main
