#!/usr/bin/env python3
"""Re-saves the GIF masks of a make-demo dataset with Pillow, interlaced or in row order.

Pillow writes GIFs interlaced unless told otherwise, with its own LZW
encoder and a 256-grey palette (indices 0 and 255): masks as many users'
tools write them, not as make-demo does. The decode benchmarks compare the
two row orders on the same masks.

  python3 bench/pillow_masks.py DATASET OUT --interlace   (or --no-interlace)

OUT gets train_masks/ with the re-saved masks and train/ as a symbolic link
to DATASET's photos. Each mask is written beside itself and renamed into
place, so an interrupted run leaves no truncated file. Needs Pillow.
"""

import argparse
import os
import pathlib

from PIL import Image


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=pathlib.Path, help="a make-demo folder (DATASET/train_masks/*.gif)")
    parser.add_argument("out", type=pathlib.Path, help="the folder to write")
    parser.add_argument("--interlace", action=argparse.BooleanOptionalAction, required=True)
    args = parser.parse_args()
    masks = sorted((args.dataset / "train_masks").glob("*.gif"))
    if not masks:
        parser.error(f"no GIF masks in {args.dataset / 'train_masks'}")
    (args.out / "train_masks").mkdir(parents=True, exist_ok=True)
    photos = args.out / "train"
    if not photos.exists():
        photos.symlink_to((args.dataset / "train").resolve(), target_is_directory=True)
    for mask in masks:
        target = args.out / "train_masks" / mask.name
        partial = target.with_name(target.name + ".partial")
        with Image.open(mask) as image:
            image.save(partial, format="GIF", interlace=args.interlace)
        os.replace(partial, target)
    print(f"{len(masks)} masks written {'interlaced' if args.interlace else 'in row order'} to {args.out}")


if __name__ == "__main__":
    main()
