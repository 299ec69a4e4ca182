"""Every layout packed by `segfeed pack` streams its folders' batches byte for
byte: Carvana with binary masks and with label maps, VOC, Cityscapes and
ADE20K, on 1 and 2 threads, by rank of 2, and resumed mid-epoch from
state_dict() at the same world size and at another. The shards need no
options: the index carries the preset's label options."""

from __future__ import annotations

import pathlib
import subprocess

import pytest
import segfeed

from bench_digest import batch_digest
from conftest import LABEL_CLASSES

OPTIONS = dict(batch_size=3, size=(32, 40), seed=11)

# name: (the fixture holding the tree, the options that read the folders)
LAYOUTS = {
    "carvana": ("demo", {}),
    "carvana-labels": ("label_scenes", dict(mask_mode="labels", num_classes=LABEL_CLASSES, mask_dtype="uint8")),
    "voc": ("layouts", dict(dataset="voc", mask_dtype="uint8")),
    "cityscapes": ("layouts", dict(dataset="cityscapes", mask_dtype="uint8")),
    "ade20k": ("layouts", dict(dataset="ade20k", mask_dtype="uint8")),
}


@pytest.fixture(scope="module", params=sorted(LAYOUTS))
def packed(request, cli, tmp_path_factory):
    """(folders, shards, the folders' options, the shards' options) of one layout."""
    fixture, folder_options = LAYOUTS[request.param]
    tree = request.getfixturevalue(fixture)
    folders = tree[folder_options["dataset"]] if fixture == "layouts" else tree
    shards = tmp_path_factory.mktemp("packed") / request.param
    label_flags = [] if "num_classes" not in folder_options else [
        "--mask-mode", "labels", "--num-classes", str(LABEL_CLASSES)]
    dataset_flags = ["--dataset", folder_options["dataset"]] if "dataset" in folder_options else []
    subprocess.run([str(cli), "pack", "--data", str(folders), "--output", str(shards), "--samples-per-shard", "4",
                    *dataset_flags, *label_flags], check=True, capture_output=True)
    shard_options = {k: v for k, v in folder_options.items() if k == "mask_dtype"}
    return folders, shards, folder_options, shard_options


def stream(data, options, epochs=(0, 1)):
    with segfeed.Loader(data, **{**OPTIONS, **options}) as loader:
        return [batch_digest(b) for epoch in epochs for b in loader.epoch(epoch)]


def resumed(data, options, saved_world, resumed_world):
    """The rest of epoch 1 at `resumed_world`, from a state saved by rank 0 of
    `saved_world` after its first batch."""
    with segfeed.Loader(data, **{**OPTIONS, **options, "rank": 0, "world_size": saved_world}) as loader:
        it = iter(loader.epoch(1))
        next(it).release()
        state = loader.state_dict()
    with segfeed.Loader(data, **{**OPTIONS, **options, "rank": 0, "world_size": resumed_world}) as loader:
        loader.load_state_dict(state)
        return [batch_digest(b) for b in loader]


@pytest.mark.parametrize("threads", [1, 2])
def test_whole_epochs_stream_the_folders_batches(packed, threads):
    folders, shards, folder_options, shard_options = packed
    expected = stream(folders, {**folder_options, "threads": threads})
    assert len(expected) >= 4
    assert stream(shards, {**shard_options, "threads": threads}) == expected


@pytest.mark.parametrize("rank", [0, 1])
def test_each_rank_of_two_streams_the_folders_batches(packed, rank):
    folders, shards, folder_options, shard_options = packed
    expected = stream(folders, {**folder_options, "rank": rank, "world_size": 2})
    assert expected
    assert stream(shards, {**shard_options, "rank": rank, "world_size": 2}) == expected


@pytest.mark.parametrize("saved_world,resumed_world", [(1, 1), (2, 2), (2, 1), (1, 2)])
def test_a_resumed_epoch_streams_the_rest_of_the_folders_epoch(packed, saved_world, resumed_world):
    folders, shards, folder_options, shard_options = packed
    expected = resumed(folders, folder_options, saved_world, resumed_world)
    assert expected  # something is left of epoch 1
    assert resumed(shards, shard_options, saved_world, resumed_world) == expected


def test_the_shards_report_the_folders_label_options(packed):
    folders, shards, folder_options, shard_options = packed
    with segfeed.Loader(folders, **{**OPTIONS, **folder_options}) as a, \
            segfeed.Loader(shards, **{**OPTIONS, **shard_options}) as b:
        labels = ("mask_mode", "num_classes", "label_map", "ignore_index", "mask_ignore_value")
        assert {k: b.options[k] for k in labels} == {k: a.options[k] for k in labels}
        assert len(b) == len(a)
