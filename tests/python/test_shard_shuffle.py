"""The epoch's order, shuffle="global" | "shards" | "none", from Python.

True and False still mean global and none, with the stream lines (and so
the digests) they had while shuffle was a bool. On shards of unequal sizes
both shuffles are pure functions of (seed, epoch, rank, world size), give
every rank as many samples, resume mid-epoch with the uninterrupted
stream's bytes, and resume at another world size with exactly the samples
not yet served, each once, with the bytes an uninterrupted run gives them.
"""

from __future__ import annotations

import hashlib
import pathlib
import tarfile

import numpy as np
import pytest
import segfeed
from segfeed import _core

from bench_digest import batch_digest

OPTIONS = dict(batch_size=2, size=(32, 40), seed=7, threads=2)
SHARD_SIZES = (4, 1, 3, 2)  # the `demo` fixture's 10 pairs
MODES = (dict(shuffle="global"), dict(shuffle="shards", shard_window=2))


@pytest.fixture(autouse=True)
def no_shard_in_the_environment(monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)


@pytest.fixture(scope="module")
def tars(demo, tmp_path_factory) -> list:
    """The demo's pairs in listing order, in four tars of 4, 1, 3 and 2 samples."""
    with segfeed.Loader(demo, **OPTIONS) as loader:
        pairs = loader.pairs()
    assert len(pairs) == sum(SHARD_SIZES)
    out = tmp_path_factory.mktemp("uneven")
    paths, first = [], 0
    for size in SHARD_SIZES:
        paths.append(str(out / f"train-{len(paths):06d}.tar"))
        with tarfile.open(paths[-1], "w") as tar:
            for key, image, mask in pairs[first:first + size]:
                tar.add(image, f"{key}{pathlib.Path(image).suffix}")
                tar.add(mask, f"{key}.mask{pathlib.Path(mask).suffix}")
        first += size
    return paths


def samples(batches) -> list:
    """(sample id, digest of its image and mask) of every sample, in order."""
    out = []
    for batch in batches:
        with batch:
            images, masks = np.asarray(batch.images), np.asarray(batch.masks)
            out += [(int(i), hashlib.sha1(images[k].tobytes() + masks[k].tobytes()).hexdigest())
                    for k, i in enumerate(batch.sample_ids)]
    return out


def test_shuffle_takes_its_choices_and_the_bools_it_was(demo):
    for given, meant in ((True, "global"), (False, "none"), (np.bool_(False), "none"), ("shards", "shards")):
        assert _core.options_from_values({"shuffle": given})["shuffle"] == meant
    for given, meant in ((True, "global"), (False, "none")):
        with segfeed.Loader(demo, **OPTIONS, shuffle=given) as loader, \
                segfeed.Loader(demo, **OPTIONS, shuffle=meant) as named:
            assert loader.options["shuffle"] == meant
            assert [batch_digest(b) for b in loader.epoch(1)] == [batch_digest(b) for b in named.epoch(1)]
            state = loader.state_dict()
            # The line a checkpoint of a bool shuffle had: its digest is unchanged.
            assert state["options"]["shuffle"] == str(given).lower()
            assert state["options_digest"] == named.state_dict()["options_digest"]
    assert _core.stream_options_digest({"shuffle": "shards"}) != _core.stream_options_digest({"shuffle": True})
    with segfeed.Loader(demo, **OPTIONS, shuffle="none") as loader:
        assert [int(i) for b in loader.epoch(0) for i in b.sample_ids] == list(range(10))


def test_each_shuffle_says_what_it_needs(demo, tars):
    with pytest.raises(segfeed.ConfigError, match="shuffle='shards' needs a shard dataset"):
        segfeed.Loader(demo, shuffle="shards")
    with pytest.raises(segfeed.ConfigError, match=r"shard_window must be 0 unless shuffle='shards' \(got 2 with "
                                                  r"shuffle='global'\)"):
        segfeed.Loader(tars, shard_window=2)
    with pytest.raises(segfeed.ConfigError, match="shuffle must be one of global, shards, none"):
        segfeed.Loader(tars, shuffle="blocks")
    with segfeed.Loader(tars, **OPTIONS, shuffle="shards") as default, \
            segfeed.Loader(tars, **OPTIONS, shuffle="shards", shard_window=4) as four:
        assert [batch_digest(b) for b in default.epoch(0)] == [batch_digest(b) for b in four.epoch(0)]


@pytest.mark.parametrize("mode", MODES, ids=["global", "shards"])
def test_the_order_is_a_pure_function_of_seed_epoch_rank_and_world(tars, mode):
    options = {**OPTIONS, **mode}
    with segfeed.Loader(tars, **options) as loader, segfeed.Loader(tars, **{**options, "threads": 1}) as again:
        whole = samples(loader.epoch(1))
        assert samples(again.epoch(1)) == whole
        assert [i for i, _ in samples(loader.epoch(2))] != [i for i, _ in whole]
    assert sorted(i for i, _ in whole) == list(range(10))
    covered = []
    for rank in (0, 1):
        with segfeed.Loader(tars, **options, rank=rank, world_size=2) as loader:
            ids = [i for i, _ in samples(loader.epoch(1))]
        assert len(ids) == 5
        assert ids == [whole[k * 2 + rank][0] for k in range(5)]  # every second of the one order
        covered += ids
    assert sorted(covered) == list(range(10))


@pytest.mark.parametrize("mode", MODES, ids=["global", "shards"])
def test_a_state_dict_resumes_mid_epoch_byte_for_byte(tars, mode):
    options = {**OPTIONS, **mode, "rank": 1, "world_size": 2, "batch_size": 1}
    with segfeed.Loader(tars, **options) as loader:
        expected = [batch_digest(b) for b in loader.epoch(1)]
        it = iter(loader.epoch(1))
        for _ in range(2):
            next(it).release()
        state = loader.state_dict()
    assert len(expected) == 5
    with segfeed.Loader(tars, **{**options, "threads": 1}) as resumed:
        resumed.load_state_dict(state)
        assert [batch_digest(b) for b in resumed] == expected[2:]


@pytest.mark.parametrize("mode", MODES, ids=["global", "shards"])
@pytest.mark.parametrize("new_world_size", [1, 3])
def test_a_state_dict_resumes_at_another_world_size_with_the_samples_not_yet_served(tars, mode, new_world_size):
    options = {**OPTIONS, **mode}
    with segfeed.Loader(tars, **options) as loader:
        uninterrupted = dict(samples(loader.epoch(1)))
    served = []
    for rank in (0, 1):  # world size 2: one batch of 2 each, the order's first 4
        with segfeed.Loader(tars, **options, rank=rank, world_size=2) as loader:
            it = iter(loader.epoch(1))
            served += samples([next(it)])
            state = loader.state_dict()
    assert state["global_position"] == 4
    rest = []
    for rank in range(new_world_size):
        with segfeed.Loader(tars, **options, rank=rank, world_size=new_world_size) as loader:
            loader.load_state_dict(state)
            rest += samples(loader)
    assert len(rest) == 6  # 6 divides by 1 and 3: no padding
    assert sorted(i for i, _ in served + rest) == list(range(10))
    assert all(uninterrupted[i] == digest for i, digest in served + rest)
