#!/usr/bin/env python3
"""segfeed against the PyTorch DataLoader doing the same recipe with albumentations.

  python bench/peer_dataloader.py --segfeed build/release/src/cli/segfeed \\
      [--segfeed OTHER_BUILD ...] --data voc200 --dataset voc [--rounds 5] [--epochs 3]

The peer is what a training script commonly writes: a Dataset that reads
the photo with cv2.imread and the label map with Pillow, an albumentations
pipeline, and torch.utils.data.DataLoader with 2 workers (persistent, each
with OpenCV and torch held to one thread, as on 2 cores they should be),
batch 16, shuffled. The recipe is the mmseg-like one of BENCHMARKS.md's
issue 47 tables, on both sides:

  - the photo fitted into 512x512 with its aspect kept, then scaled by a
    random factor in [0.5, 2] (segfeed: --resize keep_ratio --scale 0.5,2.0;
    albumentations: LongestMaxSize(512) then RandomScale);
  - a random 512x512 window, padded with 0 (photo) and 255 (labels) where
    the scaled photo is smaller (PadIfNeeded, RandomCrop);
  - a left-right flip with probability 0.5; no rotation, no up-down flip;
  - colour jitter: brightness +-0.2, contrast and saturation 0.4-0.6,
    hue +-0.2 (segfeed's defaults; ColorJitter with the same ranges);
  - float32 NHWC images in [0, 1], int64 labels (VOC's palette indices as
    they are, Cityscapes' labelIds to trainIds, others 255).

The two do not give the same pixels (different resamplers and jitter
formulas): this compares speed, not bytes. Each round runs segfeed's
`bench --threads 2` (each build given) and then the DataLoader, one after
the other, so that a drift in the machine's speed touches all; each side's rate is the
median over the epochs after the first (which pays the workers' start and
the first reads), and the speed-up is the median of the rounds' ratios.

Sets: bench/voc_like.py (--dataset voc, split trainval) and
bench/png_sets.py cityscapes (--dataset cityscapes, gtFine/train).
Needs torch, albumentations 1.4, OpenCV, NumPy < 2 (Debian's torch 1.13
is built against NumPy 1) and Pillow, e.g. a venv over Debian's
python3-torch with `pip install "numpy<2" "albumentations<1.5"
"opencv-python-headless<4.11"`.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")

import albumentations as A  # noqa: E402
import cv2  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from PIL import Image  # noqa: E402

SIZE = 512
BATCH = 16
WORKERS = 2

# Cityscapes labelIds -> trainIds (the 19 evaluated classes; the rest 255).
CITYSCAPES_TRAIN_IDS = {7: 0, 8: 1, 11: 2, 12: 3, 13: 4, 17: 5, 19: 6, 20: 7, 21: 8, 22: 9,
                        23: 10, 24: 11, 25: 12, 26: 13, 27: 14, 28: 15, 31: 16, 32: 17, 33: 18}


def voc_pairs(root):
    names = (root / "ImageSets" / "Segmentation" / "trainval.txt").read_text().split()
    return [(root / "JPEGImages" / f"{n}.jpg", root / "SegmentationClass" / f"{n}.png")
            for n in names]


def cityscapes_pairs(root):
    pairs = []
    for label in sorted((root / "gtFine" / "train").glob("*/*_gtFine_labelIds.png")):
        key = label.name[: -len("_gtFine_labelIds.png")]
        pairs.append((root / "leftImg8bit" / "train" / label.parent.name / f"{key}_leftImg8bit.png",
                      label))
    return pairs


class PairDataset(torch.utils.data.Dataset):
    def __init__(self, pairs, label_table):
        self.pairs = pairs
        self.label_table = label_table
        self.augment = A.Compose([
            A.LongestMaxSize(max_size=SIZE),
            A.RandomScale(scale_limit=(-0.5, 1.0), p=1.0),
            A.PadIfNeeded(SIZE, SIZE, border_mode=cv2.BORDER_CONSTANT, value=0, mask_value=255),
            A.RandomCrop(SIZE, SIZE),
            A.HorizontalFlip(p=0.5),
            A.ColorJitter(brightness=0.2, contrast=(0.4, 0.6), saturation=(0.4, 0.6), hue=0.2,
                          p=1.0),
            A.Normalize(mean=(0.0, 0.0, 0.0), std=(1.0, 1.0, 1.0), max_pixel_value=255.0),
        ])

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, index):
        photo_path, label_path = self.pairs[index]
        photo = cv2.imread(str(photo_path), cv2.IMREAD_COLOR)
        if photo is None:
            raise RuntimeError(f"cv2.imread could not read {photo_path}")
        photo = cv2.cvtColor(photo, cv2.COLOR_BGR2RGB)
        label = np.asarray(Image.open(label_path))
        if self.label_table is not None:
            label = self.label_table[label]
        out = self.augment(image=photo, mask=label)
        return torch.from_numpy(out["image"]), torch.from_numpy(out["mask"].astype(np.int64))


def one_thread_each(_worker):
    cv2.setNumThreads(1)
    torch.set_num_threads(1)


def peer_rates(dataset, epochs, seed):
    """samples/s of each epoch after the first."""
    generator = torch.Generator()
    generator.manual_seed(seed)
    loader = torch.utils.data.DataLoader(dataset, batch_size=BATCH, shuffle=True,
                                         num_workers=WORKERS, persistent_workers=True,
                                         worker_init_fn=one_thread_each, generator=generator)
    rates = []
    for epoch in range(epochs):
        start = time.perf_counter()
        samples = 0
        for images, labels in loader:
            assert images.shape[1:] == (SIZE, SIZE, 3) and images.dtype == torch.float32
            assert labels.shape[1:] == (SIZE, SIZE) and labels.dtype == torch.int64
            samples += images.shape[0]
        if epoch > 0:
            rates.append(samples / (time.perf_counter() - start))
    del loader
    return statistics.median(rates)


def segfeed_rate(cli, data, dataset, epochs, seed):
    with tempfile.TemporaryDirectory() as folder:
        report_path = pathlib.Path(folder) / "report.json"
        command = [cli, "bench", "--data", str(data), "--dataset", dataset,
                   "--threads", str(WORKERS), "--epochs", str(epochs), "--seed", str(seed),
                   "--batch", str(BATCH), "--resize", "keep_ratio", "--scale", "0.5,2.0",
                   "--rotation", "0", "--flip-ud", "0", "--json", str(report_path)]
        if dataset == "voc":
            command += ["--split", "trainval"]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            sys.exit(f"segfeed bench failed ({result.returncode}):\n{result.stderr}")
        return json.loads(report_path.read_text())["samples_per_s"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--segfeed", required=True, action="append",
                        help="a segfeed CLI; give it again to compare builds in the same rounds")
    parser.add_argument("--data", required=True, type=pathlib.Path)
    parser.add_argument("--dataset", required=True, choices=["voc", "cityscapes"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=3, help="per run; the first is a warm-up")
    args = parser.parse_args()
    if args.epochs < 2:
        parser.error("--epochs must be at least 2 (the first is not timed)")

    if args.dataset == "voc":
        pairs, table = voc_pairs(args.data), None
    else:
        pairs = cityscapes_pairs(args.data)
        table = np.full(256, 255, np.uint8)
        for label_id, train_id in CITYSCAPES_TRAIN_IDS.items():
            table[label_id] = train_id
    if not pairs:
        sys.exit(f"no pairs found under {args.data} for --dataset {args.dataset}")
    dataset = PairDataset(pairs, table)

    print(f"{len(pairs)} pairs, {args.rounds} rounds of {args.epochs} epochs; "
          f"torch {torch.__version__}, albumentations {A.__version__}, OpenCV {cv2.__version__}, "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    rates = {cli: [] for cli in args.segfeed}
    peer = []
    for round_index in range(args.rounds):
        line = [f"round {round_index + 1}:"]
        for cli in args.segfeed:
            rates[cli].append(segfeed_rate(cli, args.data, args.dataset, args.epochs, round_index))
            line.append(f"{cli} {rates[cli][-1]:.1f} samples/s,")
        peer.append(peer_rates(dataset, args.epochs, round_index))
        line.append(f"DataLoader {peer[-1]:.1f}")
        print(" ".join(line), flush=True)
    print(f"DataLoader: {statistics.median(peer):.1f} samples/s (median)")
    for cli, ours in rates.items():
        ratios = [a / b for a, b in zip(ours, peer)]
        print(f"{cli}: {statistics.median(ours):.1f} samples/s, / DataLoader "
              f"{statistics.median(ratios):.2f} (rounds {min(ratios):.2f}-{max(ratios):.2f})")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")

if __name__ == "__main__":
    main()
