#!/usr/bin/env python3
"""What the Python binding costs next to the C++ loader.

1. Throughput: `segfeed bench` (C++, a consumer that does nothing) against
   the same options iterated from Python, taking every batch with
   torch.from_dlpack (images and masks) and releasing it. The two alternate
   for --rounds rounds; each side reports the median samples/s of its
   epochs after the first (the warm-up), as bench does, and the table gives
   the medians over the rounds.
2. Consumer paths: microseconds to hand one held batch to each framework
   (zero-copy views) and, for scale, to copy it.
3. TensorFlow's copies (with --tensorflow): milliseconds per batch that
   tf.data's from_generator takes for a batch copied with numpy.array
   (16-byte aligned) and with segfeed's 64-byte-aligned copy, and
   segfeed.tf.dataset end to end (with either copy) against the loader
   alone.

Run with the venv scripts/dev.sh test makes (it has torch and TensorFlow):

    build/python-venv/bin/python bench/python_overhead.py --rounds 5

Without --data it uses segfeed bench's demo dataset (made once, cached).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

import segfeed

REPO = pathlib.Path(__file__).resolve().parents[1]


def cpp_bench(cli: str, data: str | None, args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "bench.json")
        command = [cli, "bench", "--epochs", str(args.epochs), "--batch", str(args.batch), "--size", str(args.size),
                   "--threads", str(args.threads), "--prefetch", str(args.prefetch), "--json", report]
        if data:
            command += ["--data", data]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        with open(report) as f:
            return json.load(f)


def demo_dataset(bench_report: dict) -> str:
    label = bench_report["dataset"]
    prefix = "demo dataset "
    return label[len(prefix):] if label.startswith(prefix) else label


def python_loop(data: str, args: argparse.Namespace) -> float:
    import torch

    with segfeed.Loader(data, batch_size=args.batch, size=args.size, threads=args.threads,
                        prefetch_batches=args.prefetch) as loader:
        rates = []
        for epoch in range(args.epochs):
            start = time.perf_counter()
            samples = 0
            for batch in loader.epoch(epoch):
                images = torch.from_dlpack(batch.images)
                masks = torch.from_dlpack(batch.masks)
                samples += images.shape[0]
                del images, masks
                batch.release()
            rates.append(samples / (time.perf_counter() - start))
    return statistics.median(rates[1:] if len(rates) > 1 else rates)


def consumer_paths(data: str, args: argparse.Namespace) -> list[tuple[str, float]]:
    import numpy as np
    import torch

    paths = []
    with segfeed.Loader(data, batch_size=16, size=512, threads=args.threads) as loader:
        with next(iter(loader)) as batch:
            assert batch.images.shape == (16, 512, 512, 3) and batch.images.dtype == "float32"
            tensor = batch.images
            candidates = [
                ("batch.images (the Tensor, cached)", lambda: batch.images),
                ("memoryview(batch.images)", lambda: memoryview(tensor)),
                ("numpy.asarray(batch.images)", lambda: np.asarray(tensor)),
                ("numpy.from_dlpack(batch.images)", lambda: np.from_dlpack(tensor)),
                ("torch.from_dlpack(batch.images)", lambda: torch.from_dlpack(tensor)),
            ]
            try:
                import tensorflow as tf

                candidates.append(("tf.experimental.dlpack.from_dlpack(batch.images.__dlpack__())",
                                   lambda: tf.experimental.dlpack.from_dlpack(tensor.__dlpack__())))
            except ImportError:
                pass
            candidates.append(("numpy.array(batch.images) (a copy, for scale)", lambda: np.array(tensor)))
            for name, call in candidates:
                call()  # first use: imports, caches
                number = 20 if "copy" in name else 2000
                seconds = min(timeit.repeat(call, number=number, repeat=5)) / number
                paths.append((name, seconds * 1e6))
    return paths


def tensorflow_copies(data: str, args: argparse.Namespace) -> list[tuple[str, float]]:
    """Milliseconds per 16x512x512x3 float32 batch."""
    import numpy as np
    import tensorflow as tf

    import segfeed.tf
    from segfeed._aligned import aligned_copy

    def through_from_generator(make_copy, source, count=20) -> float:
        copies = [make_copy(source) for _ in range(2)]  # made outside the timing: only TensorFlow's part counts
        spec = tf.TensorSpec(source.shape, tf.float32)
        dataset = tf.data.Dataset.from_generator(lambda: (copies[i % 2] for i in range(count)),
                                                 output_signature=spec)
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            for _ in dataset:
                pass
            best = min(best, (time.perf_counter() - start) / count)
        return best * 1e3

    def millis_per_batch(batches) -> float:
        """After the first 4 batches (the pipeline filling, tf.data tracing its function)."""
        count, start = 0, time.perf_counter()
        for _ in batches:
            count += 1
            if count == 4:
                start = time.perf_counter()
        return (time.perf_counter() - start) / max(1, count - 4) * 1e3

    def loader_alone(loader):
        for epoch in range(args.epochs):
            for batch in loader.epoch(epoch):
                batch.release()
                yield batch

    rows = []
    with segfeed.Loader(data, batch_size=16, size=512, threads=args.threads) as loader:
        with next(iter(loader)) as batch:
            source = np.array(batch.images)
    rows.append(("numpy.array copy of the batch",
                 min(timeit.repeat(lambda: np.array(source), number=10, repeat=5)) / 10 * 1e3))
    rows.append(("aligned_copy of the batch",
                 min(timeit.repeat(lambda: aligned_copy(source), number=10, repeat=5)) / 10 * 1e3))
    rows.append(("from_generator, numpy.array copies (16-byte aligned)", through_from_generator(np.array, source)))
    rows.append(("from_generator, aligned copies (64-byte aligned)", through_from_generator(aligned_copy, source)))
    with segfeed.Loader(data, batch_size=16, size=512, threads=args.threads, seed=1) as loader:
        rows.append(("loader alone, per batch", millis_per_batch(loader_alone(loader))))
    with segfeed.Loader(data, batch_size=16, size=512, threads=args.threads, seed=1) as loader:
        rows.append(("segfeed.tf.dataset(loader), per batch", millis_per_batch(segfeed.tf.dataset(loader, args.epochs))))
    # The same with the copy segfeed.tf made before it aligned them, for the comparison.
    segfeed.tf.aligned_copy = np.array
    try:
        with segfeed.Loader(data, batch_size=16, size=512, threads=args.threads, seed=1) as loader:
            rows.append(("  the same with numpy.array copies", millis_per_batch(segfeed.tf.dataset(loader, args.epochs))))
    finally:
        segfeed.tf.aligned_copy = aligned_copy
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="dataset root (Carvana layout); default: segfeed bench's demo dataset")
    parser.add_argument("--cli", default=str(REPO / "build/release/src/cli/segfeed"), help="the segfeed command")
    parser.add_argument("--rounds", type=int, default=3, help="A/B rounds (C++ then Python)")
    parser.add_argument("--epochs", type=int, default=3, help="epochs per run, the first a warm-up (3)")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--threads", type=int, default=0, help="0 = one per core")
    parser.add_argument("--prefetch", type=int, default=2)
    parser.add_argument("--tensorflow", action="store_true", help="also time TensorFlow's copies (part 3)")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()

    cpp, python = [], []
    data = args.data
    for _ in range(args.rounds):
        report = cpp_bench(args.cli, data, args)
        data = data or demo_dataset(report)
        cpp.append(report["samples_per_s"])
        python.append(python_loop(data, args))
    cpp_median, python_median = statistics.median(cpp), statistics.median(python)
    paths = consumer_paths(data, args)
    copies = tensorflow_copies(data, args) if args.tensorflow else []

    print(f"dataset {data}; batch {args.batch}, {args.size}x{args.size} float32 nhwc, threads {args.threads or 'all'}, "
          f"prefetch {args.prefetch}, {args.epochs} epochs per run (first is warm-up), {args.rounds} A/B rounds")
    print(f"  C++ segfeed bench:              {cpp_median:7.1f} samples/s  (runs: {', '.join(f'{r:.1f}' for r in cpp)})")
    print(f"  Python, torch.from_dlpack:      {python_median:7.1f} samples/s  "
          f"(runs: {', '.join(f'{r:.1f}' for r in python)})")
    print(f"  Python / C++:                   {python_median / cpp_median:7.3f}  (target >= 0.97)")
    print("consumer paths on one 16x512x512x3 float32 batch (best of 5 x N calls):")
    for name, micros in paths:
        print(f"  {name:<66} {micros:10.2f} us")
    if copies:
        print("TensorFlow and one 16x512x512x3 float32 batch (copies: best of 3-5 runs; the last three rows: mean per batch after the first 4):")
    for name, millis in copies:
        print(f"  {name:<66} {millis:10.2f} ms")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpp_samples_per_s": cpp, "python_samples_per_s": python, "ratio": python_median / cpp_median,
                       "consumer_paths_us": dict(paths), "tensorflow_ms": dict(copies)}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
