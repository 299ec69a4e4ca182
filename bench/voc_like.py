#!/usr/bin/env python3
"""Writes a VOC-like dataset with Pillow: 500x375 JPEG photos and palette PNG labels.

Each scene is a textured background with a few objects (ellipses and
rectangles) of random VOC classes; the label map gives each object's pixels
its class, the background 0 and a 5-pixel band around each object 255
(VOC's "void" border), in VOC's palette. Photos are the scene's colours plus
texture at several scales, saved by Pillow at quality 90, 4:2:0: files like
a camera's, written by another libjpeg-turbo writer than segfeed's.

  python3 bench/voc_like.py OUT [--count 200] [--seed 0]

OUT gets JPEGImages/, SegmentationClass/ and ImageSets/Segmentation/
trainval.txt (segfeed bench --data OUT --dataset voc --split trainval). The
result depends only on the options. Needs Pillow and NumPy.
"""

import argparse
import pathlib

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

WIDTH, HEIGHT = 500, 375


def voc_palette():
    """VOC's colour map: class i's colour from the bits of i."""
    palette = []
    for i in range(256):
        r = g = b = 0
        c = i
        for j in range(8):
            r |= ((c >> 0) & 1) << (7 - j)
            g |= ((c >> 1) & 1) << (7 - j)
            b |= ((c >> 2) & 1) << (7 - j)
            c >>= 3
        palette += [r, g, b]
    return palette


def texture(rng):
    """Zero-mean texture in levels: fine noise plus upsampled coarser noise."""
    out = rng.normal(0.0, 3.0, size=(HEIGHT, WIDTH, 3))
    for cell, sigma in ((4, 5.0), (16, 10.0), (64, 16.0)):
        coarse = rng.normal(0.0, sigma, size=(HEIGHT // cell + 2, WIDTH // cell + 2, 3))
        out += np.repeat(np.repeat(coarse, cell, axis=0), cell, axis=1)[:HEIGHT, :WIDTH]
    return out


def scene(rng):
    """(photo RGB array, label map array) of one scene."""
    photo = Image.new("RGB", (WIDTH, HEIGHT), tuple(int(v) for v in rng.integers(40, 200, 3)))
    labels = Image.new("L", (WIDTH, HEIGHT), 0)
    draw_photo, draw_labels = ImageDraw.Draw(photo), ImageDraw.Draw(labels)
    for _ in range(int(rng.integers(1, 4))):
        cls = int(rng.integers(1, 21))
        x0, y0 = int(rng.integers(0, WIDTH - 60)), int(rng.integers(0, HEIGHT - 60))
        x1 = int(rng.integers(x0 + 50, min(WIDTH, x0 + 300)))
        y1 = int(rng.integers(y0 + 50, min(HEIGHT, y0 + 250)))
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        shape = draw_photo.ellipse if rng.random() < 0.5 else draw_photo.rectangle
        shape_labels = draw_labels.ellipse if shape == draw_photo.ellipse else draw_labels.rectangle
        shape_labels((x0 - 5, y0 - 5, x1 + 5, y1 + 5), fill=255)  # the void border
        shape((x0, y0, x1, y1), fill=colour)
        shape_labels((x0, y0, x1, y1), fill=cls)
    photo = photo.filter(ImageFilter.GaussianBlur(1.5))
    pixels = np.clip(np.asarray(photo, dtype=np.float64) + texture(rng), 0, 255).astype(np.uint8)
    return pixels, np.asarray(labels)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    photos = args.out / "JPEGImages"
    labels = args.out / "SegmentationClass"
    lists = args.out / "ImageSets" / "Segmentation"
    for folder in (photos, labels, lists):
        folder.mkdir(parents=True, exist_ok=True)
    palette = voc_palette()
    names = []
    for i in range(args.count):
        rng = np.random.default_rng([args.seed, i])
        pixels, label_map = scene(rng)
        name = f"2007_{i:06d}"
        Image.fromarray(pixels).save(photos / f"{name}.jpg", quality=90, subsampling=2)
        label = Image.fromarray(label_map, mode="L").convert("P")
        label.putpalette(palette)
        label.save(labels / f"{name}.png")
        names.append(name)
    (lists / "trainval.txt").write_text("".join(n + "\n" for n in names))


if __name__ == "__main__":
    main()
