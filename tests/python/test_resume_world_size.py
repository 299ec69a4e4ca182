"""Resuming on another number of ranks: each rank a process of its own, as torchrun starts them.

A job of world size 2 stops after k batches a rank and saves a state_dict();
a job of world size 1 or 3 resumes from it. Over the old ranks and the new,
every sample of the epoch is delivered exactly once (the new ranks' padding
aside: the first samples of the rest, repeated up to a multiple of the new
world size, as DistributedSampler pads), each with the bytes it has in an
uninterrupted run. At the same world size the resumed stream is the
uninterrupted one, byte for byte.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import textwrap
from typing import Dict, List, Optional

import numpy as np
import pytest
import segfeed

from bench_digest import batch_digest

OPTIONS = dict(batch_size=2, size=(32, 48), seed=3, threads=1)
SAMPLES = 10  # the `demo` fixture's pairs

# One rank: argv = dataset, state to resume from ("" for none), batches to
# take (-1: the rest of the epoch), output file. RANK and WORLD_SIZE come
# from the environment, as torchrun sets them.
RANK = textwrap.dedent("""
    import hashlib, json, sys
    import numpy as np
    import segfeed
    sys.path.insert(0, {tests!r})
    from bench_digest import batch_digest
    data, state_file, take, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    loader = segfeed.Loader(data, **{options!r})
    if state_file:
        with open(state_file) as f:
            loader.load_state_dict(json.load(f))
    batches = []
    it = iter(loader)
    epoch_batches = len(it)
    for batch in it:
        with batch:
            images, masks = np.asarray(batch.images), np.asarray(batch.masks)
            samples = [[int(i), hashlib.sha1(images[k].tobytes() + masks[k].tobytes()).hexdigest()]
                       for k, i in enumerate(batch.sample_ids)]
            batches.append({{"epoch": batch.epoch, "digest": batch_digest(batch), "samples": samples}})
        if len(batches) == take:
            break
    state = loader.state_dict()  # the checkpoint a training loop writes after its step
    with open(out, "w") as f:
        json.dump({{"rank": loader.rank, "world_size": loader.world_size, "epoch_batches": epoch_batches,
                   "batches": batches, "state": state}}, f)
""")


def run_ranks(demo: pathlib.Path, folder: pathlib.Path, world_size: int, take: int,
              state: Optional[dict] = None) -> List[dict]:
    """Runs `world_size` rank processes at once; returns each one's record, by rank."""
    folder.mkdir()
    state_file = ""
    if state is not None:
        state_file = str(folder / "state.json")
        pathlib.Path(state_file).write_text(json.dumps(state))
    code = RANK.format(tests=os.path.dirname(__file__), options=OPTIONS)
    processes = []
    try:
        for rank in range(world_size):
            env = {**os.environ, "RANK": str(rank), "WORLD_SIZE": str(world_size)}
            processes.append(subprocess.Popen(
                [sys.executable, "-c", code, str(demo), state_file, str(take), str(folder / f"rank{rank}.json")],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        for process in processes:
            _, stderr = process.communicate(timeout=120)
            assert process.returncode == 0, stderr
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    return [json.loads((folder / f"rank{rank}.json").read_text()) for rank in range(world_size)]


def reference_bytes(demo: pathlib.Path) -> Dict[int, str]:
    """Each sample's digest in an uninterrupted, unsharded epoch 0."""
    with segfeed.Loader(demo, **OPTIONS, rank=0, world_size=1) as loader:
        digests = {}
        for batch in loader.epoch(0):
            with batch:
                images, masks = np.asarray(batch.images), np.asarray(batch.masks)
                for k, i in enumerate(batch.sample_ids):
                    digests[int(i)] = hashlib.sha1(images[k].tobytes() + masks[k].tobytes()).hexdigest()
        return digests


def samples(records: List[dict]) -> List[List]:
    return [sample for record in records for batch in record["batches"] for sample in batch["samples"]]


@pytest.mark.parametrize("take, new_world_size", [(1, 1), (1, 3), (2, 3)])
def test_a_state_of_world_size_2_resumes_at_another_with_each_sample_once(demo, tmp_path, take, new_world_size):
    before = run_ranks(demo, tmp_path / "before", 2, take)
    states = [record["state"] for record in before]
    consumed = take * OPTIONS["batch_size"] * 2
    assert [(s["version"], s["epoch"], s["next_batch"], s["shard_start"], s["global_position"]) for s in states] == \
        [(3, 0, take, 0, consumed)] * 2
    # Any rank's state will do: the ranks checkpoint in step.
    after = run_ranks(demo, tmp_path / "after", new_world_size, -1, state=states[1])
    rest = SAMPLES - consumed
    per_rank = -(-rest // new_world_size)
    assert [r["epoch_batches"] for r in after] == [-(-per_rank // OPTIONS["batch_size"])] * new_world_size
    assert {b["epoch"] for r in after for b in r["batches"]} == {0}
    assert [(r["state"]["epoch"], r["state"]["next_batch"], r["state"]["shard_start"]) for r in after] == \
        [(1, 0, 0)] * new_world_size  # the resumed epoch is over: the next one starts as usual

    old, new = samples(before), samples(after)
    old_ids = collections.Counter(i for i, _ in old)
    new_ids = collections.Counter(i for i, _ in new)
    assert max(old_ids.values()) == 1 and not set(old_ids) & set(new_ids)
    assert set(old_ids) | set(new_ids) == set(range(SAMPLES))
    padding = per_rank * new_world_size - rest
    assert sum(new_ids.values()) - len(new_ids) == padding
    reference = reference_bytes(demo)
    assert all(digest == reference[i] for i, digest in old + new)


def test_at_the_same_world_size_the_resumed_stream_is_the_uninterrupted_one(demo, tmp_path):
    whole = run_ranks(demo, tmp_path / "whole", 2, -1)
    before = run_ranks(demo, tmp_path / "before", 2, 1)
    after = run_ranks(demo, tmp_path / "after", 2, -1, state=before[0]["state"])
    for rank in range(2):
        assert [b["digest"] for b in before[rank]["batches"] + after[rank]["batches"]] == \
            [b["digest"] for b in whole[rank]["batches"]]
        assert after[rank]["state"] == whole[rank]["state"]
