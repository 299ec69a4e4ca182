"""One binary-mask rule for every mask format, and GIF transparency, on files as Pillow and OpenCV write them.

Each case is a one-pair dataset checked with `segfeed check --json`: its problems say what check
reports, and the foreground fraction (binary mode) or the class table (labels mode) says what the
mask loads as, since check reads masks exactly as the loader does.
"""

from __future__ import annotations

import json
import pathlib
import subprocess

import pytest

import numpy as np
from PIL import Image

HEIGHT, WIDTH = 24, 40
# Background 0, a 12x16 foreground box (1), and for three-value masks a band of a third value (2).
TWO = np.zeros((HEIGHT, WIDTH), np.uint8)
TWO[6:18, 12:28] = 1
THREE = TWO.copy()
THREE[0:3, :] = 2
BOX_FRACTION = 12 * 16 / (HEIGHT * WIDTH)

NONZERO_RULE = "foreground = every value other than 0 (mask_foreground nonzero)"
LUMINANCE_RULE = "foreground = luminance of at least 128 (mask_foreground luminance, mask_threshold 128)"


def voc_palette() -> list[int]:
    """VOC's colour map: class 1 is (128, 0, 0), a dark red of luminance 38."""
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


def painted(values: np.ndarray, colours: dict, dtype=np.uint8) -> np.ndarray:
    """An array of `colours[value]` per pixel (a grey level, or an RGB/RGBA tuple)."""
    out = np.zeros(values.shape + np.shape(next(iter(colours.values()))), dtype)
    for value, colour in colours.items():
        out[values == value] = colour
    return out


def grey8(values, colours):
    return Image.fromarray(painted(values, colours), "L")


def grey16(values, colours):
    image = Image.fromarray(painted(values, colours, np.uint16))
    assert image.mode == "I;16"
    return image


def rgb(values, colours):
    return Image.fromarray(painted(values, colours), "RGB")


def rgba(values, colours):
    return Image.fromarray(painted(values, colours), "RGBA")


def palette(values, _colours):
    image = Image.fromarray(values.astype(np.uint8), "P")
    image.putpalette(voc_palette())
    return image


# name -> (writer, its colours for values 0, 1, 2 with a bright foreground, with a dark foreground)
FORMATS = {
    "grey8": (grey8, {0: 0, 1: 255, 2: 128}, {0: 0, 1: 1}),
    "grey16": (grey16, {0: 0, 1: 65535, 2: 30000}, {0: 0, 1: 1}),
    "rgb": (rgb, {0: (0, 0, 0), 1: (255, 255, 255), 2: (0, 255, 0)}, {0: (0, 0, 0), 1: (128, 0, 0)}),
    "rgba": (rgba, {0: (0, 0, 0, 255), 1: (255, 255, 255, 255), 2: (0, 255, 0, 255)},
             {0: (0, 0, 0, 255), 1: (128, 0, 0, 255)}),
    # VOC's palette: index 1 is always its dark red, index 2 (0, 128, 0).
    "palette-png": (palette, None, None),
    "palette-gif": (palette, None, None),
}


def dataset(root: pathlib.Path, mask_name: str, save) -> pathlib.Path:
    """root/images/a.jpg with root/masks/a_mask.EXT written by `save(path)`."""
    (root / "images").mkdir(parents=True)
    (root / "masks").mkdir()
    Image.fromarray(np.full((HEIGHT, WIDTH, 3), 90, np.uint8)).save(root / "images" / "a.jpg")
    save(root / "masks" / mask_name)
    return root


def check(cli: pathlib.Path, root: pathlib.Path, *flags: str) -> dict:
    """`segfeed check --json` on a folders dataset: the report."""
    report = root.parent / (root.name + ".json")
    subprocess.run([str(cli), "check", "--images", str(root / "images"), "--masks", str(root / "masks"),
                    "--mask-ext", ".png,.gif,.jpg", "--threads", "1", "--json", str(report), *flags],
                   capture_output=True, text=True, timeout=120)
    return json.loads(report.read_text())


def problems(report: dict) -> list[tuple[str, str]]:
    return [(pathlib.Path(p["path"]).name, p["kind"]) for p in report["problems"]]


def foreground(report: dict) -> float:
    return report["summary"]["mask_foreground_fraction"]["mean"]


def write_mask(tmp_path, name, values, bright: bool, **save):
    writer, bright_colours, dark_colours = FORMATS[name]
    ext = "gif" if name.endswith("gif") else "png"
    image = writer(values, bright_colours if bright else dark_colours)
    return dataset(tmp_path / "data", f"a_mask.{ext}", lambda path: image.save(path, **save)), f"a_mask.{ext}"


@pytest.mark.parametrize("name", FORMATS)
def test_two_values_load_as_binary_and_are_clean(cli, tmp_path, name):
    root, _ = write_mask(tmp_path, name, TWO, bright=True)
    report = check(cli, root)
    assert problems(report) == []
    assert foreground(report) == pytest.approx(BOX_FRACTION)


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("rule", ["nonzero", "luminance"])
def test_more_than_two_values_are_non_binary_and_the_message_states_the_rule(cli, tmp_path, name, rule):
    root, mask = write_mask(tmp_path, name, THREE, bright=True)
    report = check(cli, root, "--mask-foreground", rule)
    # Under the luminance rule VOC's dark colours all read as background: that is reported too.
    assert [kind for path, kind in problems(report) if path == mask].count("non_binary_mask") == 1
    detail = next(p["detail"] for p in report["problems"] if p["kind"] == "non_binary_mask")
    assert detail.startswith("mask has more than two distinct values; read as binary with ")
    assert detail.endswith(NONZERO_RULE if rule == "nonzero" else LUMINANCE_RULE)
    assert "palette colours" not in detail and "thresholded" not in detail


@pytest.mark.parametrize("name", FORMATS)
def test_dark_foreground_is_foreground_under_the_default_rule(cli, tmp_path, name):
    root, _ = write_mask(tmp_path, name, TWO, bright=False)
    report = check(cli, root)
    assert problems(report) == []
    assert foreground(report) == pytest.approx(BOX_FRACTION)


# Under the luminance rule VOC's dark red (and grey level 1) is background: the mask loads
# empty although its file holds two values, which check reports.
@pytest.mark.parametrize("name", FORMATS)
def test_two_values_that_load_empty_are_reported(cli, tmp_path, name):
    root, mask = write_mask(tmp_path, name, TWO, bright=False)
    report = check(cli, root, "--mask-foreground", "luminance")
    assert foreground(report) == 0
    kinds = problems(report)
    assert (mask, "suspicious_mask") in kinds
    detail = next(p["detail"] for p in report["problems"] if p["path"].endswith(mask))
    assert detail == "mask holds two distinct values but every pixel reads as background: " + LUMINANCE_RULE


def test_two_values_that_load_full_are_reported(cli, tmp_path):
    root, mask = write_mask(tmp_path, "grey8", TWO, bright=False)
    # Levels 200 and 255: both at least the threshold.
    image = grey8(TWO, {0: 200, 1: 255})
    image.save(root / "masks" / mask)
    report = check(cli, root, "--mask-foreground", "luminance")
    assert foreground(report) == 1
    assert (mask, "suspicious_mask") in problems(report)
    detail = next(p["detail"] for p in report["problems"] if p["path"].endswith(mask))
    assert detail == "mask holds two distinct values but every pixel reads as foreground: " + LUMINANCE_RULE


def test_a_png_photo_used_as_mask_is_non_binary(cli, tmp_path):
    noise = np.random.default_rng(7).integers(0, 256, (HEIGHT, WIDTH, 3), dtype=np.uint8)
    root = dataset(tmp_path / "data", "a_mask.png", lambda path: Image.fromarray(noise).save(path))
    report = check(cli, root)
    # No pixel of the noise is black: under the nonzero rule it also loads as all foreground.
    assert sorted(problems(report)) == [("a_mask.png", "non_binary_mask"), ("a_mask.png", "suspicious_mask")]
    assert foreground(report) == 1


def test_a_jpeg_used_as_mask_is_unsupported_and_says_which_formats_are(cli, tmp_path):
    photo = Image.fromarray(np.where(TWO[..., None] == 1, 255, 0).repeat(3, axis=2).astype(np.uint8))
    root = dataset(tmp_path / "data", "a_mask.jpg", lambda path: photo.save(path, quality=95))
    report = check(cli, root)
    assert problems(report) == [("a_mask.jpg", "unsupported_format")]
    assert report["problems"][0]["detail"] == "not a GIF or PNG file (JPEG data)"


def test_opencv_masks_follow_the_same_rule(cli, tmp_path):
    import cv2
    cases = {
        "grey16": (THREE.astype(np.uint16) * 30000, "non_binary_mask"),
        "bgr": (np.where(THREE[..., None] > 0, THREE[..., None] * 100, 0).repeat(3, axis=2).astype(np.uint8),
                "non_binary_mask"),
        "bgr-two": (np.where(TWO[..., None] > 0, 128, 0).repeat(3, axis=2).astype(np.uint8), None),
    }
    for name, (pixels, kind) in cases.items():
        root = dataset(tmp_path / name, "a_mask.png", lambda path: cv2.imwrite(str(path), pixels))
        assert problems(check(cli, root)) == ([("a_mask.png", kind)] if kind else []), name


# A label GIF saved with a transparent index, as Pillow does with transparency=0: in labels mode
# an index is a class, transparent or not, exactly as the same map saved as PNG.
@pytest.mark.parametrize("transparent", [0, 1])
def test_gif_transparent_index_is_a_class_in_labels_mode(cli, tmp_path, transparent):
    labels = ["--mask-mode", "labels", "--num-classes", "3"]
    gif = check(cli, dataset(tmp_path / "gif", "a_mask.gif",
                             lambda path: palette(THREE, None).save(path, transparency=transparent)), *labels)
    png = check(cli, dataset(tmp_path / "png", "a_mask.png", lambda path: palette(THREE, None).save(path)),
                *labels)
    assert problems(gif) == [] and problems(png) == []
    assert gif["summary"]["classes"] == png["summary"]["classes"]
    pixels = {c["id"]: c["pixels"] for c in gif["summary"]["classes"]}
    assert pixels == {v: int((THREE == v).sum()) for v in range(3)}


# Binary mode: a GIF's transparent pixels are background (nothing is painted there), whatever
# their index or colour. Pillow's transparency=0 on index 0 changes nothing; a transparent
# foreground index loads empty, and check says so.
def test_gif_transparent_index_is_background_in_binary_mode(cli, tmp_path):
    report = check(cli, dataset(tmp_path / "t0", "a_mask.gif",
                                lambda path: palette(TWO, None).save(path, transparency=0)))
    assert problems(report) == []
    assert foreground(report) == pytest.approx(BOX_FRACTION)

    report = check(cli, dataset(tmp_path / "t1", "a_mask.gif",
                                lambda path: palette(TWO, None).save(path, transparency=1)))
    assert foreground(report) == 0
    assert ("a_mask.gif", "suspicious_mask") in problems(report)
    detail = next(p["detail"] for p in report["problems"] if p["path"].endswith("a_mask.gif"))
    assert detail == ("mask holds two distinct values but every pixel reads as background: " + NONZERO_RULE
                      + "; its GIF transparent index is background")
