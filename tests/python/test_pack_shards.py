"""`segfeed pack`'s shards read by others: Python's tarfile and the webdataset package.

Every member a reader sees must hold the bytes of the file it came from, and
WebDataset's first-dot rule must give back each sample's key, a key with a
dot included (pack writes it percent-encoded; the .json keeps the original).
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import tarfile

import pytest

from conftest import make_demo


@pytest.fixture(scope="module")
def packed(cli, tmp_path_factory):
    """A 6-pair make-demo tree, one pair renamed to a key with a dot, packed two pairs a shard."""
    root = tmp_path_factory.mktemp("pack")
    data = make_demo(cli, root / "data", 6, 64, 48)
    first = sorted((data / "train").iterdir())[0]
    stem = first.stem
    first.rename(data / "train" / "scan.v2.jpg")
    (data / "train_masks" / f"{stem}_mask.gif").rename(data / "train_masks" / "scan.v2_mask.gif")
    out = root / "shards"
    subprocess.run([str(cli), "pack", "--data", str(data), "--output", str(out), "--samples-per-shard", "2"],
                   check=True, capture_output=True)
    return data, sorted(out.glob("train-*.tar"))


def sources(data: pathlib.Path) -> dict:
    """Each key's photo and mask bytes, from the dataset's files."""
    return {photo.stem: ((photo.read_bytes(), (data / "train_masks" / f"{photo.stem}_mask.gif").read_bytes()))
            for photo in (data / "train").iterdir()}


def test_tarfile_reads_every_member_with_the_source_bytes(packed):
    data, shards = packed
    assert len(shards) == 3
    expected = sources(data)
    seen = {}
    for shard in shards:
        with tarfile.open(shard) as tar:
            members = tar.getmembers()
            assert all(m.isfile() and m.uid == 0 and m.gid == 0 and m.mtime == 0 for m in members)
            for photo, mask, meta in zip(members[0::3], members[1::3], members[2::3]):
                record = json.loads(tar.extractfile(meta).read())
                key = record["key"]
                assert photo.name.endswith(".jpg") and mask.name.endswith(".mask.gif")
                assert record["photo"]["bytes"] == photo.size
                seen[key] = (tar.extractfile(photo).read(), tar.extractfile(mask).read())
    assert seen == expected
    assert "scan.v2" in seen


def test_webdataset_reads_the_same_samples(packed):
    webdataset = pytest.importorskip("webdataset")
    data, shards = packed
    expected = sources(data)
    samples = list(webdataset.WebDataset([str(s) for s in shards], shardshuffle=False))
    assert len(samples) == len(expected)
    for sample in samples:
        key = json.loads(sample["json"])["key"]
        assert sample["__key__"] == key.replace("%", "%25").replace(".", "%2E")
        assert (sample["jpg"], sample["mask.gif"]) == expected[key]
