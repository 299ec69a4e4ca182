"""Fixtures of the Python suite: the segfeed CLI, small generated datasets, subprocesses.

Every dataset is made here with `segfeed make-demo` in a temporary folder;
nothing needs the network, a real dataset or a GPU.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The segfeed command: $SEGFEED_CLI, else the release build's."""
    path = pathlib.Path(os.environ.get("SEGFEED_CLI", REPO / "build/release/src/cli/segfeed"))
    if not path.is_file():
        pytest.fail(f"no segfeed command at {path}: build the release preset or set SEGFEED_CLI")
    return path


def make_demo(cli: pathlib.Path, folder: pathlib.Path, count: int, width: int, height: int, seed: int = 0,
              quality: int = 90, classes: int = 0) -> pathlib.Path:
    """`segfeed make-demo`: binary car masks, or with `classes` VOC-style palette PNG label maps."""
    subprocess.run([str(cli), "make-demo", str(folder), "--count", str(count), "--width", str(width),
                    "--height", str(height), "--seed", str(seed), "--quality", str(quality)]
                   + (["--classes", str(classes)] if classes else []),
                   check=True, capture_output=True)
    return folder


LABEL_CLASSES = 5


@pytest.fixture(scope="session")
def layouts(cli, tmp_path_factory) -> dict:
    """make-demo's VOC, Cityscapes and ADE20K trees, 12 pairs of 64x48 each (9 train, 3 val)."""
    root = tmp_path_factory.mktemp("layouts")
    for name in ("voc", "cityscapes", "ade20k"):
        subprocess.run([str(cli), "make-demo", str(root / name), "--dataset", name, "--count", "12",
                        "--width", "64", "--height", "48"], check=True, capture_output=True)
    return {name: root / name for name in ("voc", "cityscapes", "ade20k")}


@pytest.fixture(scope="session")
def label_scenes(cli, tmp_path_factory) -> pathlib.Path:
    """16 multi-object scenes of 96x64 with palette PNG label maps: classes 0-4, 255 on object boundaries."""
    return make_demo(cli, tmp_path_factory.mktemp("scenes") / "data", 16, 96, 64, seed=3, classes=LABEL_CLASSES)


@pytest.fixture(scope="session")
def demo(cli, tmp_path_factory) -> pathlib.Path:
    """10 Carvana-like pairs of 96x64 (Carvana layout: train/, train_masks/)."""
    return make_demo(cli, tmp_path_factory.mktemp("demo") / "data", 10, 96, 64)


@pytest.fixture()
def demo_copy(demo, tmp_path) -> pathlib.Path:
    """A private copy of `demo` that a test may break."""
    return pathlib.Path(shutil.copytree(demo, tmp_path / "data"))


@pytest.fixture(scope="session")
def slow(cli, tmp_path_factory) -> pathlib.Path:
    """24 pairs of one 8000x6000 photo (hard links): about 0.1 s of decoding per
    sample, so with threads=1 a batch of 24 keeps next() waiting for seconds."""
    root = make_demo(cli, tmp_path_factory.mktemp("slow") / "data", 1, 8000, 6000, quality=95)
    image = next((root / "train").iterdir())
    mask = next((root / "train_masks").iterdir())
    for i in range(23):
        os.link(image, root / "train" / f"slow_{i:02d}.jpg")
        os.link(mask, root / "train_masks" / f"slow_{i:02d}_mask.gif")
    return root


def run_python(code: str, *args: str, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter (this one's) and returns the finished process."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                          timeout=timeout, **kwargs)
