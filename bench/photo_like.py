#!/usr/bin/env python3
"""Rewrites the photos of a make-demo dataset as photo-like JPEGs written by Pillow.

make-demo's studio photos are smooth: they compress to a fraction of what a
camera photo of the same size does, and the entropy decoder, which is most of
the decode of a real photo, has little to read. This adds texture at several
scales (sensor-like noise, fine and coarse structure) to each photo and saves
it with Pillow (libjpeg-turbo through another writer than ours), so that
benchmarks and the checker meet files like the ones people train on.

  python3 bench/photo_like.py DATASET [--quality 90] [--subsampling 4:2:0]

DATASET is a make-demo folder (DATASET/train/*.jpg); the photos are replaced
in place, masks untouched. The result depends only on the inputs and options.
Needs Pillow and NumPy.
"""

import argparse
import os
import pathlib
import zlib

import numpy as np
from PIL import Image

SUBSAMPLING = {"4:4:4": 0, "4:2:2": 1, "4:2:0": 2}


def texture(shape, rng):
    """Zero-mean texture in levels of 255: fine noise plus upsampled coarser noise."""
    height, width = shape
    out = rng.normal(0.0, 3.0, size=(height, width, 3))
    for cell, sigma in ((4, 5.0), (16, 10.0), (64, 16.0)):
        coarse = rng.normal(0.0, sigma, size=(height // cell + 2, width // cell + 2, 3))
        up = np.repeat(np.repeat(coarse, cell, axis=0), cell, axis=1)[:height, :width]
        out += up
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=pathlib.Path)
    parser.add_argument("--quality", type=int, default=90)
    parser.add_argument("--subsampling", choices=sorted(SUBSAMPLING), default="4:2:0")
    args = parser.parse_args()
    photos = sorted((args.dataset / "train").glob("*.jpg"))
    if not photos:
        raise SystemExit(f"photo_like.py: no .jpg under {args.dataset / 'train'}")
    total = 0
    for photo in photos:
        rgb = np.asarray(Image.open(photo).convert("RGB"), dtype=np.float64)
        rng = np.random.default_rng(zlib.crc32(photo.name.encode()))
        noisy = np.clip(rgb + texture(rgb.shape[:2], rng), 0, 255).astype(np.uint8)
        # Written beside it and renamed over it: an interrupted run leaves
        # every photo whole, old or new, never a truncated one.
        partial = photo.with_name(photo.name + ".partial")
        Image.fromarray(noisy).save(partial, "JPEG", quality=args.quality,
                                    subsampling=SUBSAMPLING[args.subsampling])
        os.replace(partial, photo)
        total += photo.stat().st_size
    print(f"{len(photos)} photos, {total / len(photos) / 1024:.0f} KiB each on average "
          f"(quality {args.quality}, {args.subsampling})")


if __name__ == "__main__":
    main()
