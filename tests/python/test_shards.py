"""Shard datasets from Python: folders packed into tars with Python's tarfile
(ustar, GNU and PAX) and by webdataset.ShardWriter, in the folders' listing
order, stream the folders' batches byte for byte, however the shards are
named, sharded by rank and resumed from state_dict() (at the same world
size and at another)."""

from __future__ import annotations

import pathlib
import subprocess
import tarfile

import pytest
import segfeed

from bench_digest import batch_digest

OPTIONS = dict(batch_size=3, size=(32, 40), seed=5, threads=2)
FORMATS = (tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT)
VOC_LABELS = dict(mask_mode="labels", num_classes=21, mask_ignore_value=255, mask_dtype="uint8")


def pack(pairs, out: pathlib.Path, per_shard: int, tar_format: int) -> list:
    """Each pair as <key>.<photo ext> and <key>.mask.<mask ext>, in listing order."""
    out.mkdir()
    tars = []
    for first in range(0, len(pairs), per_shard):
        tars.append(out / f"train-{len(tars):06d}.tar")
        with tarfile.open(tars[-1], "w", format=tar_format) as tar:
            for key, image, mask in pairs[first:first + per_shard]:
                tar.add(image, f"{key}{pathlib.Path(image).suffix}")
                tar.add(mask, f"{key}.mask{pathlib.Path(mask).suffix}")
    return tars


def digests(data, epochs=2, **options):
    with segfeed.Loader(data, **{**OPTIONS, **options}) as loader:
        return [batch_digest(b) for epoch in range(epochs) for b in loader.epoch(epoch)]


@pytest.mark.parametrize("tar_format", FORMATS)
def test_shards_stream_the_folders_batches_however_they_are_named(cli, demo, tmp_path, tar_format):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        pairs = loader.pairs()
    tars = pack(pairs, tmp_path / "shards", 4, tar_format)
    expected = digests(demo)
    # Without an index: scanned.
    assert digests([str(t) for t in tars]) == expected
    assert digests(str(tmp_path / "shards" / "train-{000000..000002}.tar")) == expected
    subprocess.run([str(cli), "index", *map(str, tars)], check=True, capture_output=True)
    assert digests(tmp_path / "shards") == expected
    assert digests(tmp_path / "shards" / "index.sfidx") == expected
    with segfeed.Loader(tmp_path / "shards", **OPTIONS) as loader:
        keys = [key for key, _, _ in loader.pairs()]
        members = loader.pairs()[0][1:]
    assert keys == [key for key, _, _ in pairs]
    assert members == (f"{tars[0]}:{pairs[0][0]}.jpg", f"{tars[0]}:{pairs[0][0]}.mask.gif")


def test_each_rank_and_a_resumed_epoch_stream_the_folders_batches(demo, tmp_path):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        tars = pack(loader.pairs(), tmp_path / "shards", 3, tarfile.PAX_FORMAT)
    for rank in (0, 1):
        assert digests(tars, rank=rank, world_size=2) == digests(demo, rank=rank, world_size=2)
    with segfeed.Loader(tars, **OPTIONS) as loader:
        it = iter(loader.epoch(1))
        next(it).release()
        state = loader.state_dict()
    with segfeed.Loader(demo, **OPTIONS) as loader:
        expected = [batch_digest(b) for b in loader.epoch(1)][1:]
    with segfeed.Loader(tars, **{**OPTIONS, "threads": 1}) as loader:
        loader.load_state_dict(state)
        assert [batch_digest(b) for b in loader] == expected  # the rest of epoch 1


def test_label_maps_stream_the_presets_batches_with_its_options_given(layouts, tmp_path):
    voc = layouts["voc"]
    with segfeed.Loader(voc, dataset="voc", **OPTIONS) as loader:
        tars = pack(loader.pairs(), tmp_path / "shards", 4, tarfile.GNU_FORMAT)
    expected = digests(voc, dataset="voc", mask_dtype="uint8")
    assert digests(tars, **VOC_LABELS) == expected


def test_shard_keywords_are_checked(demo, tmp_path):
    with pytest.raises(TypeError, match="not both"):
        segfeed.Loader(["a.tar"], shards=["b.tar"])
    with pytest.raises(TypeError, match="list of tar paths"):
        segfeed.Loader(shards="a.tar")
    with pytest.raises(ValueError, match="comma"):
        segfeed.Loader(shards=["a,b.tar"])
    with pytest.raises(segfeed.ConfigError, match="does not go with dataset shards"):
        segfeed.Loader(tmp_path / "x-{0..1}.tar", mask_suffix="_m")


def test_the_shard_block_shuffle_reads_a_window_of_shards_and_resumes(demo, tmp_path):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        tars = pack(loader.pairs(), tmp_path / "shards", 2, tarfile.USTAR_FORMAT)
    options = {**OPTIONS, "batch_size": 2, "shuffle": "shards", "shard_window": 1, "augment": None}
    with segfeed.Loader(tars, **options) as loader:
        order = [int(i) for b in loader.epoch(0) for i in b.sample_ids]
    assert sorted(order) == list(range(10))
    # One shard at a time: each shard's two samples are neighbours.
    assert sorted(tuple(sorted(order[i:i + 2])) for i in range(0, 10, 2)) == [(i, i + 1) for i in range(0, 10, 2)]
    with segfeed.Loader(tars, **options) as loader:
        expected = [batch_digest(b) for b in loader.epoch(1)][2:]
        it = iter(loader.epoch(1))
        for _ in range(2):
            next(it).release()
        state = loader.state_dict()
    with segfeed.Loader(tars, **options) as loader:
        loader.load_state_dict(state)
        assert [batch_digest(b) for b in loader] == expected
    with pytest.raises(segfeed.ConfigError, match="shuffle='shards' needs a shard dataset"):
        segfeed.Loader(demo, shuffle="shards", shard_window=2)


def test_tars_written_by_webdatasets_shard_writer_stream_the_folders_batches(demo, tmp_path):
    webdataset = pytest.importorskip("webdataset")
    with segfeed.Loader(demo, **OPTIONS) as loader:
        pairs = loader.pairs()
    (tmp_path / "wds").mkdir()
    pattern = str(tmp_path / "wds" / "train-%06d.tar")
    with webdataset.ShardWriter(pattern, maxcount=4, verbose=0) as sink:
        for key, image, mask in pairs:
            sink.write({"__key__": key, "jpg": pathlib.Path(image).read_bytes(),
                        "mask.gif": pathlib.Path(mask).read_bytes(), "json": {"source": image}})
    tars = sorted(str(t) for t in (tmp_path / "wds").glob("train-*.tar"))
    assert len(tars) == (len(pairs) + 3) // 4
    assert digests(tars) == digests(demo)


def test_a_state_saved_at_world_size_two_resumes_at_one_as_the_folders_do(demo, tmp_path):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        tars = pack(loader.pairs(), tmp_path / "shards", 3, tarfile.PAX_FORMAT)

    def resumed(data):
        with segfeed.Loader(data, **OPTIONS, rank=0, world_size=2) as loader:
            it = iter(loader.epoch(1))
            next(it).release()
            state = loader.state_dict()
        with segfeed.Loader(data, **OPTIONS, rank=0, world_size=1) as loader:
            loader.load_state_dict(state)
            return [batch_digest(b) for b in loader]

    expected = resumed(demo)
    assert expected  # the rest of epoch 1 at world size 1
    assert resumed(tars) == expected


@pytest.mark.parametrize("preset", ["voc", "cityscapes", "ade20k"])
def test_a_preset_packed_by_segfeed_pack_streams_its_folders_batches_with_no_options(cli, layouts, tmp_path,
                                                                                     preset):
    out = tmp_path / "packed"
    subprocess.run([str(cli), "pack", "--data", str(layouts[preset]), "--dataset", preset, "--output", str(out),
                    "--samples-per-shard", "4"], check=True, capture_output=True)
    expected = digests(layouts[preset], dataset=preset, mask_dtype="uint8")
    assert digests(out, mask_dtype="uint8") == expected
    assert digests(out, mask_dtype="uint8", rank=1, world_size=2) == digests(
        layouts[preset], dataset=preset, mask_dtype="uint8", rank=1, world_size=2)
