#!/usr/bin/env python3
"""How well the shard-block shuffle (shuffle="shards") mixes, against the global
permutation (shuffle="global") and WebDataset's default (shards shuffled, then
a 1000-sample buffer).

Makes a tiny demo dataset (16x16 pairs, so decoding costs nothing), packs it
into equal tar shards in listing order, indexes them and reads one epoch's
order from segfeed.Loader's batches (Batch.sample_ids) for each mode. Per
mode it reports:

- the rank correlation (Spearman) between a sample's position in the epoch
  and in the listing: 0 is no trace of the listing, 1 the listing itself;
- the mean number of distinct shards in a batch: how many of the dataset's
  shards one batch draws from (a batch of one shard is the worst case);
- the most shards open at once (read from, not yet finished): the reads in
  flight a store must serve.

WebDataset's order is simulated by its algorithm (shards in a random order,
samples streamed through a buffer of --buffer samples, each output drawn at
random from it), seeded from Python's random module.

    SEGFEED_CLI=build/release/src/cli/segfeed python bench/shuffle_quality.py
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import subprocess
import tarfile
import tempfile

import segfeed


def spearman(order: list) -> float:
    n = len(order)
    d2 = sum((position - sample) ** 2 for position, sample in enumerate(order))
    return 1 - 6 * d2 / (n * (n * n - 1))


def shard_figures(order: list, per_shard: int, batch: int) -> tuple:
    shards = [sample // per_shard for sample in order]
    batches = [shards[i:i + batch] for i in range(0, len(shards), batch)]
    distinct = sum(len(set(b)) for b in batches) / len(batches)
    last = {shard: i for i, shard in enumerate(shards)}
    open_now, most = set(), 0
    for i, shard in enumerate(shards):
        open_now.add(shard)
        most = max(most, len(open_now))
        if last[shard] == i:
            open_now.discard(shard)
    return distinct, most


def webdataset_order(count: int, per_shard: int, buffer: int, seed: int) -> list:
    rng = random.Random(seed)
    shard_order = list(range(count // per_shard))
    rng.shuffle(shard_order)
    pending, out = [], []
    for shard in shard_order:
        for sample in range(shard * per_shard, (shard + 1) * per_shard):
            pending.append(sample)
            if len(pending) >= buffer:
                out.append(pending.pop(rng.randrange(len(pending))))
    while pending:
        out.append(pending.pop(rng.randrange(len(pending))))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=4000)
    parser.add_argument("--per-shard", type=int, default=100)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--buffer", type=int, default=1000)
    args = parser.parse_args()
    cli = os.environ.get("SEGFEED_CLI", "build/release/src/cli/segfeed")
    with tempfile.TemporaryDirectory() as scratch:
        root = pathlib.Path(scratch)
        subprocess.run([cli, "make-demo", str(root / "data"), "--count", str(args.count), "--width", "16",
                        "--height", "16"], check=True, capture_output=True)
        with segfeed.Loader(root / "data", shuffle="none") as loader:
            pairs = loader.pairs()
        (root / "shards").mkdir()
        tars = []
        for first in range(0, len(pairs), args.per_shard):
            tars.append(root / "shards" / f"train-{len(tars):06d}.tar")
            with tarfile.open(tars[-1], "w") as tar:
                for key, image, mask in pairs[first:first + args.per_shard]:
                    tar.add(image, f"{key}.jpg")
                    tar.add(mask, f"{key}.mask.gif")
        subprocess.run([cli, "index", *map(str, tars)], check=True, capture_output=True)
        orders = {}
        modes = (("global", "global", 0), ("shards, K=1", "shards", 1), ("shards, K=2", "shards", 2),
                 ("shards (K=4)", "shards", 0), ("shards, K=8", "shards", 8))
        for name, shuffle, window in modes:
            with segfeed.Loader(root / "shards", batch_size=args.batch, size=(16, 16), threads=2, seed=1,
                                augment=None, shuffle=shuffle, shard_window=window) as loader:
                orders[name] = [int(i) for b in loader.epoch(0) for i in b.sample_ids]
        orders[f"webdataset, buffer {args.buffer}"] = webdataset_order(len(pairs), args.per_shard, args.buffer, 1)
    print(f"{len(pairs)} samples in {len(pairs) // args.per_shard} shards of {args.per_shard}, "
          f"batches of {args.batch}")
    print(f"{'mode':<24} {'spearman':>9} {'shards/batch':>13} {'most open':>10}")
    for name, order in orders.items():
        distinct, most = shard_figures(order, args.per_shard, args.batch)
        print(f"{name:<24} {spearman(order):>9.3f} {distinct:>13.1f} {most:>10}")


if __name__ == "__main__":
    main()
