#!/usr/bin/env python3
"""The two halves of bench/soak.sh that are easier in Python than in bash.

  soak.py mutate ROOT PRISTINE LOG [--victims N] [--interval S] [--max-mutated N] [--seed N]
  soak.py check --samples FILE --reference FILE --mutations FILE --proc FILE --root ROOT
                --pristine PRISTINE ...

`mutate` damages and restores files of the dataset copy ROOT (PRISTINE is
the untouched copy) until SIGTERM, and logs every act to LOG as JSON lines
with CLOCK_MONOTONIC nanoseconds, the clock `segfeed bench --sample-digests`
uses. A mutation's line is written and flushed *before* the file is touched
and its restore's line *after* the pristine bytes are back, so the interval
between them covers every moment the file was not good, even if the
mutator is killed in between (a mutation without a restore lasts forever).

`check` reads bench's per-sample log, the reference digests of an
unmutated run, the mutation log and the /proc samples, prints the final
summary and exits 1 when anything is wrong (see RELIABILITY.md).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import signal
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

KINDS = ("truncate", "corrupt", "delete", "folder")
INFINITY = math.inf


def pair_files(root: Path) -> list[tuple[str, str]]:
    """The (image, mask) paths, relative to ROOT, in bench's listing order.

    make-demo's Carvana layout: train/<key>.jpg with train_masks/<key>_mask.gif,
    listed sorted by key (the README's folders rule), so the position in this
    list is the pair id bench logs.
    """
    keys = sorted(p.stem for p in (root / "train").iterdir() if p.suffix == ".jpg")
    return [(f"train/{k}.jpg", f"train_masks/{k}_mask.gif") for k in keys]


# ---------------------------------------------------------------- mutate


class Mutator:
    """Damages one victim file or restores one damaged file per tick."""

    def __init__(self, root: Path, pristine: Path, log: Path, victims: list[str],
                 max_mutated: int, seed: int) -> None:
        self.root = root
        self.pristine = pristine
        self.log = log.open("a", buffering=1)  # line-buffered: each act is on disk at once
        self.victims = victims
        self.max_mutated = max_mutated
        self.rng = random.Random(seed)
        self.mutated: dict[str, str] = {}  # path -> kind
        self.stopping = False

    def write(self, record: dict[str, object]) -> None:
        record["t"] = time.monotonic_ns()
        self.log.write(json.dumps(record) + "\n")
        self.log.flush()

    def mutate(self, path: str, kind: str) -> None:
        target = self.root / path
        self.write({"event": "mutate", "path": path, "kind": kind})  # before the act
        size = target.stat().st_size
        if kind == "truncate":
            os.truncate(target, self.rng.randrange(0, size))
        elif kind == "corrupt":
            # In place, as a failing disk or a half-finished copy would: a few
            # runs of random bytes, some of which a decoder cannot notice.
            with target.open("r+b") as f:
                for _ in range(4):
                    f.seek(self.rng.randrange(0, size))
                    f.write(self.rng.randbytes(self.rng.randrange(1, 64)))
        elif kind == "delete":
            target.unlink()
        elif kind == "folder":
            target.unlink()
            target.mkdir()
        self.mutated[path] = kind

    def restore(self, path: str) -> None:
        target = self.root / path
        if target.is_dir():
            target.rmdir()
        # Written beside the tree, then renamed over: a reader sees the
        # damaged file or the whole pristine one, never a half-written one.
        staging = self.root / ".soak-restore"
        shutil.copyfile(self.pristine / path, staging)
        os.replace(staging, target)
        kind = self.mutated.pop(path)
        self.write({"event": "restore", "path": path, "kind": kind})  # after the act

    def tick(self) -> None:
        restore = bool(self.mutated) and (len(self.mutated) >= self.max_mutated
                                          or self.rng.random() < 0.5)
        if restore:
            self.restore(self.rng.choice(sorted(self.mutated)))
        else:
            path = self.rng.choice([v for v in self.victims if v not in self.mutated])
            self.mutate(path, self.rng.choice(KINDS))

    def run(self, interval: float) -> None:
        deadline = time.monotonic()
        while not self.stopping:
            self.tick()
            deadline += interval
            time.sleep(max(0.0, deadline - time.monotonic()))
        for path in sorted(self.mutated):  # leave the copy as it was
            self.restore(path)


def victim_files(root: Path, victims: int) -> list[str]:
    """Both files of `victims` pairs spread evenly over the listing."""
    pairs = pair_files(root)
    step = len(pairs) / victims
    chosen = [pairs[int(i * step)] for i in range(victims)]
    return [f for pair in chosen for f in pair]


def run_mutate(args: argparse.Namespace) -> int:
    root, pristine = Path(args.root), Path(args.pristine)
    victims = victim_files(pristine, args.victims)  # the copy may be damaged already
    mutator = Mutator(root, pristine, Path(args.log), victims, args.max_mutated, args.seed)

    def stop(_signal: int, _frame: object) -> None:
        mutator.stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    mutator.run(args.interval)
    return 0


# ---------------------------------------------------------------- check


@dataclass
class Epoch:
    start: int
    end: int | None = None
    delivered: int = 0
    ids: Counter[int] = field(default_factory=Counter)


def read_lines(path: Path) -> Iterator[dict[str, object]]:
    with path.open() as f:
        for line in f:
            if line.endswith("\n"):  # a line cut by a crash is not evidence
                yield json.loads(line)


def bad_intervals(mutations: Path) -> dict[str, list[tuple[int, float]]]:
    """Per file, the [mutation start, restore end] intervals; open ones never end."""
    intervals: dict[str, list[tuple[int, float]]] = defaultdict(list)
    open_since: dict[str, int] = {}
    for record in read_lines(mutations):
        path, t = str(record["path"]), int(record["t"])  # type: ignore[call-overload]
        if record["event"] == "mutate":
            open_since[path] = t
        else:
            intervals[path].append((open_since.pop(path), t))
    for path, start in open_since.items():
        intervals[path].append((start, INFINITY))
    return intervals


def touched(intervals: dict[str, list[tuple[int, float]]], paths: tuple[str, ...], begin: int,
            end: float) -> bool:
    """Whether any of `paths` was not good at some moment of [begin, end]."""
    return any(start <= end and stop >= begin for p in paths for start, stop in intervals.get(p, ()))


def reference_digests(path: Path) -> tuple[dict[int, str], int]:
    """Pair id -> sample digest, and the samples of a full epoch, from the unmutated run.

    Without augmentation a sample's bytes depend on its pair's bytes only,
    so each pair has one digest in every epoch and slot; the reference run
    has two epochs and any pair with two digests makes it unusable.
    """
    digests: dict[int, str] = {}
    per_epoch: Counter[int] = Counter()
    for record in read_lines(path):
        if record["event"] != "sample":
            continue
        pair, digest = int(record["id"]), str(record["digest"])  # type: ignore[call-overload]
        per_epoch[int(record["epoch"])] += 1  # type: ignore[call-overload]
        if digests.setdefault(pair, digest) != digest:
            sys.exit(f"soak: the reference run gave pair {pair} two digests: not reproducible")
    return digests, per_epoch[0]


def proc_figures(path: Path, baseline_s: float,
                 threads: int) -> tuple[list[str], dict[str, list[float]]]:
    """Growth failures past the baseline window's maxima, and start/max/end/limit per figure.

    The limit is the baseline window's maximum + 5%. For open fds, a few
    units, 5% is less than one fd, and each decode thread holds one
    dataset file open while it reads it: a sample taken while more threads
    were reading than in any baseline sample is not growth. So fds may also
    reach the baseline's minimum plus one per thread; a leak still fails,
    as it keeps growing.
    """
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    columns = {"rss_mib": 1, "fds": 2, "threads": 3}
    failures: list[str] = []
    figures: dict[str, list[float]] = {}
    for name, col in columns.items():
        values = [(float(r[0]), float(r[col])) for r in rows]
        if not values:
            continue
        window = [v for t, v in values if t < baseline_s] or [values[0][1]]
        base = max(window)
        limit = base * 1.05
        if name == "fds":
            limit = max(limit, min(window) + threads)
        over = [(t, v) for t, v in values if t >= baseline_s and v > limit]
        if over:
            t, v = over[0]
            failures.append(f"{name} grew to {v:g} at {t:.0f} s, over {limit:.4g} "
                            f"(the first {baseline_s:.0f} s reached at most {base:g})")
        figures[name] = [values[0][1], max(v for _, v in values), values[-1][1], limit]
    return failures, figures


def run_check(args: argparse.Namespace) -> int:
    root = Path(args.root)
    pairs = pair_files(Path(args.pristine or args.root))  # the copy may lack some files
    reference, full_epoch = reference_digests(Path(args.reference))
    intervals = bad_intervals(Path(args.mutations))
    failures: list[str] = []

    epochs: dict[int, Epoch] = {}
    batches = 0
    checked = unchecked = damaged_bytes = 0
    skips: list[tuple[str, str, int]] = []
    current = -1
    for record in read_lines(Path(args.samples)):
        event = record["event"]
        if event == "epoch_start":
            current = int(record["epoch"])  # type: ignore[call-overload]
            epochs[current] = Epoch(start=int(record["t"]))  # type: ignore[call-overload]
        elif event == "epoch_end":
            epochs[int(record["epoch"])].end = int(record["t"])  # type: ignore[call-overload]
        elif event == "skip":
            path = os.path.relpath(str(record["path"]), root)
            t = int(record["t"])  # type: ignore[call-overload]
            skips.append((path, str(record["kind"]), t))
            # Skipped files are logged after the batch that met them, so the
            # read happened in [this epoch's start, t]: the file must have
            # been damaged at some moment of it.
            if not touched(intervals, (path,), epochs[current].start, t):
                failures.append(f"{path} was skipped ({record['kind']}: {record['detail']}) "
                                f"although it was good from the epoch's start until then")
        elif event == "sample":
            epoch = epochs[int(record["epoch"])]  # type: ignore[call-overload]
            pair, t = int(record["id"]), int(record["t"])  # type: ignore[call-overload]
            epoch.delivered += 1
            epoch.ids[pair] += 1
            if record["slot"] == 0:
                batches += 1
            # Good during its whole read: neither file damaged at any moment
            # from the epoch's start (no slot of the epoch is read earlier)
            # to the batch's delivery (none is read later).
            if touched(intervals, pairs[pair], epoch.start, t):
                unchecked += 1
                # Damage no decoder can see (bytes changed inside JPEG
                # entropy data) delivers other pixels: counted, not failed.
                damaged_bytes += record["digest"] != reference[pair]
                continue
            checked += 1
            if record["digest"] != reference[pair]:
                failures.append(f"epoch {record['epoch']} batch {record['batch']} slot "
                                f"{record['slot']}: pair {pair} ({pairs[pair][0]}) has digest "
                                f"{record['digest']}, its reference is {reference[pair]}")

    # Missing samples: every pair good through a whole epoch must come at
    # least once in it (replacements only add samples). A pair bad once is
    # passed over for the rest of the run (README: "a bad pair is read
    # once"), so those are counted, not failed.
    skipped_at: dict[int, int] = {}
    by_path = {f: i for i, pair in enumerate(pairs) for f in pair}
    for path, _, t in skips:
        if path in by_path:  # else it failed above: no mutation touches a file not listed
            skipped_at.setdefault(by_path[path], t)
    retired_epochs = 0
    complete = [(n, e) for n, e in sorted(epochs.items()) if e.end and e.delivered == full_epoch]
    for n, epoch in complete:
        for pair, files in enumerate(pairs):
            if epoch.ids[pair] or touched(intervals, files, epoch.start, epoch.end or 0):
                continue
            if pair in skipped_at and skipped_at[pair] <= epoch.end:  # type: ignore[operator]
                retired_epochs += 1
            else:
                failures.append(f"epoch {n}: pair {pair} ({files[0]}) was good through the "
                                f"whole epoch but never delivered")

    mutations = Counter(str(r["kind"]) for r in read_lines(Path(args.mutations))
                        if r["event"] == "mutate")
    restores = sum(1 for r in read_lines(Path(args.mutations)) if r["event"] == "restore")
    growth, figures = proc_figures(Path(args.proc), args.baseline_s, args.threads)
    failures += growth
    if args.bench_status != 0:
        failures.append(f"segfeed bench exited with status {args.bench_status}")
    if args.elapsed_s + 5 < args.duration_s:
        failures.append(f"segfeed bench ended after {args.elapsed_s} s of {args.duration_s} s")

    delivered = sum(e.delivered for e in epochs.values())
    print(f"soak summary: {args.elapsed_s} s, {len(epochs)} epochs, {batches} batches, "
          f"{delivered} samples delivered")
    print(f"  samples checked against their reference: {checked} "
          f"({unchecked} others had a file damaged during their read, {damaged_bytes} of "
          f"them delivered with other bytes than the reference)")
    print(f"  mutations: " + ", ".join(f"{k} {mutations[k]}" for k in KINDS) +
          f"; restores {restores} (of {len(set(intervals))} files of "
          f"{args.victims} victim pairs)")
    kinds = Counter(kind for _, kind, _ in skips)
    print(f"  skipped files: {len(skips)} (" + ", ".join(f"{k} {v}" for k, v in
                                                      sorted(kinds.items())) + ")"
          f"; complete epochs {len(complete)}, pair-epochs passed over after a restore "
          f"{retired_epochs}")
    for name, unit in (("rss_mib", " MiB"), ("fds", ""), ("threads", "")):
        if name in figures:
            start, peak, end, limit = figures[name]
            print(f"  {name.split('_')[0]}: start {start:g}{unit}, max {peak:g}{unit}, "
                  f"end {end:g}{unit} (limit after the first {args.baseline_s:.0f} s: "
                  f"{limit:.4g}{unit})")
    for failure in failures[:20]:
        print(f"  FAIL {failure}")
    if len(failures) > 20:
        print(f"  ... and {len(failures) - 20} more failures")
    print("soak: FAIL" if failures else "soak: PASS")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("mutate")
    m.add_argument("root")
    m.add_argument("pristine")
    m.add_argument("log")
    m.add_argument("--victims", type=int, default=50)
    m.add_argument("--interval", type=float, default=0.1)
    m.add_argument("--max-mutated", type=int, default=8)
    m.add_argument("--seed", type=int, default=0)
    c = sub.add_parser("check")
    for name in ("--samples", "--reference", "--mutations", "--proc", "--root"):
        c.add_argument(name, required=True)
    c.add_argument("--pristine", help="the unmutated copy, listed for the pair ids (default: ROOT)")
    c.add_argument("--baseline-s", type=float, default=60)
    c.add_argument("--duration-s", type=int, required=True)
    c.add_argument("--elapsed-s", type=int, required=True)
    c.add_argument("--bench-status", type=int, required=True)
    c.add_argument("--victims", type=int, required=True)
    c.add_argument("--threads", type=int, required=True)
    args = parser.parse_args()
    return run_mutate(args) if args.command == "mutate" else run_check(args)


if __name__ == "__main__":
    sys.exit(main())
