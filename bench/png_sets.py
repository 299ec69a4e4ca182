#!/usr/bin/env python3
"""Writes the PNG files and the Cityscapes-like set the PNG decode benchmarks read.

  python3 bench/png_sets.py files OUT                 # single files, Pillow and OpenCV
  python3 bench/png_sets.py cityscapes OUT [--pairs 60]

`files` writes, each by Pillow (its defaults: zlib level 6, an adaptive
filter per row; a palette image unfiltered, as Pillow writes mode P) and by
OpenCV (libpng, level 1 and adaptive filters):
  label_grey_{pillow,opencv}.png    1918x1280 8-bit grey label map (Carvana's size)
  label_palette_pillow.png          the same labels as a palette (VOC-style) PNG
  photo_rgb_{pillow,opencv}.png     2048x1024 8-bit RGB photo-like image
`cityscapes` writes a set in Cityscapes' layout (`--dataset cityscapes`):
leftImg8bit/train/<city>/<key>_leftImg8bit.png (2048x1024 RGB, Pillow) with
gtFine/train/<city>/<key>_gtFine_labelIds.png (grey labelIds, Pillow).

The content is scene-like, not flat colour: label maps are regions of a few
classes (sky, buildings, road, cars, poles) with irregular borders; photos
are smooth gradients per region plus sensor-like noise and texture, so they
compress about as a camera photo does (2-4 bits per sample). The result
depends only on the options. Needs NumPy, Pillow and OpenCV.
"""

import argparse
import pathlib

import cv2
import numpy as np
from PIL import Image

# Cityscapes labelIds: sky 23, building 11, road 7, sidewalk 8, car 26, pole 17, vegetation 21.
SKY, BUILDING, ROAD, SIDEWALK, CAR, POLE, VEGETATION = 23, 11, 7, 8, 26, 17, 21
CLASS_COLOURS = {SKY: (70, 130, 180), BUILDING: (70, 70, 70), ROAD: (128, 64, 128),
                 SIDEWALK: (244, 35, 232), CAR: (0, 0, 142), POLE: (153, 153, 153),
                 VEGETATION: (107, 142, 35)}


def smooth_noise(shape, cell, rng):
    """Noise at the scale of `cell` pixels, bilinearly upsampled (values about -1..1)."""
    height, width = shape
    coarse = rng.normal(0.0, 1.0, size=(height // cell + 2, width // cell + 2)).astype(np.float32)
    return cv2.resize(coarse, (width, height), interpolation=cv2.INTER_LINEAR)


def scene_labels(width, height, rng):
    """A street-like label map: sky over buildings over road, cars and poles on top."""
    y = np.arange(height, dtype=np.float32)[:, None]
    horizon = height * (0.35 + 0.05 * smooth_noise((1, width), 200, rng))
    skyline = height * (0.12 + 0.08 * np.abs(smooth_noise((1, width), 60, rng)))
    road_top = height * 0.62 + 10 * smooth_noise((1, width), 300, rng)
    labels = np.full((height, width), BUILDING, np.uint8)
    labels[y < skyline] = SKY
    labels[(y >= horizon) & (smooth_noise((height, width), 80, rng) > 0.6)] = VEGETATION
    labels[y >= road_top] = ROAD
    labels[(y >= road_top) & (y < road_top + height * 0.05)] = SIDEWALK
    for _ in range(6):  # cars: rounded boxes on the road
        cx, cy = rng.integers(0, width), rng.integers(int(height * 0.6), int(height * 0.85))
        w, h = rng.integers(width // 20, width // 8), rng.integers(height // 20, height // 10)
        cv2.ellipse(labels, (int(cx), int(cy)), (int(w), int(h)), 0, 0, 360, CAR, -1)
    for _ in range(5):  # poles: thin verticals
        x = int(rng.integers(0, width))
        labels[int(height * 0.2):int(height * 0.7), x:x + max(3, width // 300)] = POLE
    return labels


def scene_photo(labels, rng):
    """A photo of the label map: per-class colour with gradients, texture and noise."""
    height, width = labels.shape
    palette = np.zeros((256, 3), np.float32)
    for label, colour in CLASS_COLOURS.items():
        palette[label] = colour
    photo = palette[labels]
    ramp = np.linspace(-25, 25, height, dtype=np.float32)[:, None, None]
    photo += ramp + 12 * smooth_noise((height, width), 32, rng)[:, :, None]
    photo += 6 * smooth_noise((height, width), 4, rng)[:, :, None]
    photo += rng.normal(0.0, 3.0, size=photo.shape).astype(np.float32)
    return np.clip(photo, 0, 255).astype(np.uint8)


def voc_palette():
    palette = []
    for index in range(256):
        r = g = b = 0
        c = index
        for bit in range(8):
            r |= ((c >> 0) & 1) << (7 - bit)
            g |= ((c >> 1) & 1) << (7 - bit)
            b |= ((c >> 2) & 1) << (7 - bit)
            c >>= 3
        palette += [r, g, b]
    return palette


def write_files(out, rng):
    out.mkdir(parents=True, exist_ok=True)
    labels = scene_labels(1918, 1280, rng)
    Image.fromarray(labels, "L").save(out / "label_grey_pillow.png")
    cv2.imwrite(str(out / "label_grey_opencv.png"), labels)
    # VOC-style: class indices 0-6 under VOC's colour map.
    indices = np.searchsorted(np.array(sorted(CLASS_COLOURS)), labels).astype(np.uint8)
    palette = Image.fromarray(indices, "P")
    palette.putpalette(voc_palette())
    palette.save(out / "label_palette_pillow.png")
    photo = scene_photo(scene_labels(2048, 1024, rng), rng)
    Image.fromarray(photo, "RGB").save(out / "photo_rgb_pillow.png")
    cv2.imwrite(str(out / "photo_rgb_opencv.png"), cv2.cvtColor(photo, cv2.COLOR_RGB2BGR))


def write_cityscapes(out, pairs, rng):
    for i in range(pairs):
        city = ("aachen", "bochum")[i % 2]
        key = f"{city}_{i:06d}_000019"
        images = out / "leftImg8bit" / "train" / city
        masks = out / "gtFine" / "train" / city
        images.mkdir(parents=True, exist_ok=True)
        masks.mkdir(parents=True, exist_ok=True)
        labels = scene_labels(2048, 1024, rng)
        Image.fromarray(scene_photo(labels, rng), "RGB").save(images / f"{key}_leftImg8bit.png")
        Image.fromarray(labels, "L").save(masks / f"{key}_gtFine_labelIds.png")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("files", "cityscapes"))
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--pairs", type=int, default=60)
    args = parser.parse_args()
    rng = np.random.default_rng(47)
    if args.what == "files":
        write_files(args.out, rng)
    else:
        write_cityscapes(args.out, args.pairs, rng)


if __name__ == "__main__":
    main()
