#!/usr/bin/env python3
"""How far decode_colour=ycbcr and colour_model=linear lie from the reference path.

Streams one epoch of DATASET through segfeed's Loader four times with the
same seed and options (uint8 images, so the figures are levels of 255):
rgb+hsv (today's bytes), ycbcr+hsv, rgb+linear and ycbcr+linear, and
compares each sample's pixels. For each pair of paths it prints the mean and
the largest absolute difference per channel and a histogram of the
differences. Then the linear model against hsv with one colour op on at a
time, over that op's default range, to show where the models part.

  python3 bench/colour_paths.py DATASET [--size 512] [--batches 13]

Needs the segfeed package (pip install .) and NumPy.
"""

import argparse

import numpy as np
import segfeed

BUCKETS = (0, 1, 2, 4, 8, 16, 256)  # histogram bins: 0, 1, 2-3, 4-7, 8-15, 16+


def stream(data, size, batches, decode_colour, augment):
    """The epoch's uint8 images, as one array."""
    images = []
    with segfeed.Loader(data, batch_size=16, size=(size, size), seed=3, image_dtype="uint8",
                        mask_dtype="uint8", decode_colour=decode_colour, augment=augment) as loader:
        for index, batch in enumerate(loader.epoch(0)):
            if index == batches:
                break
            images.append(np.array(batch.images))
    return np.concatenate(images).astype(np.int16)


def report(name, ours, reference):
    difference = np.abs(ours - reference)
    means = difference.reshape(-1, 3).mean(axis=0)
    largest = difference.reshape(-1, 3).max(axis=0)
    counts, _ = np.histogram(difference, bins=BUCKETS)
    shares = " ".join(f"{100 * c / difference.size:.2f}%" for c in counts)
    print(f"{name:34s} mean R {means[0]:.3f} G {means[1]:.3f} B {means[2]:.3f}  "
          f"max {largest[0]} {largest[1]} {largest[2]}  histogram [0 1 2-3 4-7 8-15 16+] {shares}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--batches", type=int, default=13)
    args = parser.parse_args()

    hsv = segfeed.Augment()
    linear = segfeed.Augment(colour_model="linear")
    paths = {(colour, model.colour_model): stream(args.data, args.size, args.batches, colour, model)
             for colour in ("rgb", "ycbcr") for model in (hsv, linear)}
    print(f"{args.data}: {paths[('rgb', 'hsv')].shape[0]} samples at {args.size}x{args.size}, "
          "default augmentation, levels of 255")
    report("ycbcr+hsv vs rgb+hsv", paths[("ycbcr", "hsv")], paths[("rgb", "hsv")])
    report("ycbcr+linear vs rgb+linear", paths[("ycbcr", "linear")], paths[("rgb", "linear")])
    report("rgb+linear vs rgb+hsv", paths[("rgb", "linear")], paths[("rgb", "hsv")])
    report("ycbcr+linear vs rgb+hsv", paths[("ycbcr", "linear")], paths[("rgb", "hsv")])

    # One op at a time over its default range: where the two models part.
    off = dict(contrast=None, brightness=None, saturation=None, hue=None)
    defaults = segfeed.Augment()
    for op in ("contrast", "brightness", "saturation", "hue"):
        alone = dict(off, **{op: getattr(defaults, op)})
        ours = stream(args.data, args.size, args.batches, "rgb",
                      segfeed.Augment(colour_model="linear", **alone))
        reference = stream(args.data, args.size, args.batches, "rgb", segfeed.Augment(**alone))
        report(f"rgb+linear vs rgb+hsv, {op} alone", ours, reference)


if __name__ == "__main__":
    main()
