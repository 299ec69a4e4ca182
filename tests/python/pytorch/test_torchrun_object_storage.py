"""torchrun with two ranks reading one bucket (moto, object_storage_servers.py): each rank's
samples are the ones it gets from the same shards read locally, disjoint, together the
dataset; a run stopped at a checkpoint resumes from the bucket on one process with every
sample of the epoch once, the local shards' samples. The nodes are test_torchrun_nodes.py's
(one agent and one worker each, on 127.0.0.1 at a free port)."""

from __future__ import annotations

import collections
import json
import re

import pytest
import segfeed

from object_storage_servers import BUCKET, aws_env, moto_server, pack_into_bucket, require  # noqa: F401

torch = require("torch")  # before test_torchrun_nodes, which would skip without it even under CI
import segfeed.torch  # noqa: E402  (after torch: the adapter needs it)
from test_torchrun_nodes import TINY, finish, interrupted_run, nodes_of  # noqa: E402

SAMPLES = 11  # over 2 ranks: 6 each, one padded
URL = f"s3://{BUCKET}/ddp/"


@pytest.fixture(scope="module")
def packed(cli, moto_server, tmp_path_factory):
    return pack_into_bucket(cli, moto_server, tmp_path_factory.mktemp("torchrun_s3"), "ddp", count=SAMPLES)


def local_ids(data, epoch: int = 0, state=None, **options):
    """The sample ids the sample's Loader (TINY's options, seed 0) gives a rank of `data`."""
    with segfeed.Loader(data, batch_size=2, size=32, layout="nchw", seed=0, threads=1, **options) as loader:
        if state is not None:
            loader.load_state_dict(state)
        batches = segfeed.torch.batches(loader, None if state is not None else epoch, info=True)
        return [i for _, _, info in batches for i in info["sample_ids"]]


def ids_by_rank(folder, epoch: int = 0):
    """{rank: ids} of the ids files of the last run in `folder`."""
    found = {}
    for path in sorted(folder.glob("ids-*.json")):
        record = json.loads(path.read_text())
        found[record["rank"]] = record["epochs"].get(str(epoch), [])
    return found


def test_two_ranks_read_one_bucket_disjointly_as_the_local_shards(cli, packed, aws_env, tmp_path):
    ids = tmp_path / "ids"
    ids.mkdir()
    with nodes_of(tmp_path, cli, ["--data", URL, *TINY, "--epochs", "1", "--ids-out", ids]) as nodes:
        out = finish(nodes)
    assert ("shards: 2 ranks x 6 samples cover all 11 of the epoch, disjoint but for 1 padding sample(s)") in out, out
    got = ids_by_rank(ids)
    assert sorted(got) == [0, 1]
    for rank in (0, 1):
        assert got[rank] == local_ids(packed["shards"], rank=rank, world_size=2), rank
    counts = collections.Counter(got[0] + got[1])
    assert set(counts) == set(range(SAMPLES)) and sum(counts.values()) == SAMPLES + 1
    assert aws_env["secret"] not in out


def test_a_checkpoint_on_two_ranks_resumes_from_the_bucket_on_one(cli, packed, aws_env, tmp_path):
    checkpoint = interrupted_run(cli, tmp_path, URL, step=1)
    state = torch.load(checkpoint)["loader"]
    assert aws_env["secret"] not in repr(state)
    for path in tmp_path.glob("ids-*.json"):
        path.rename(path.with_name("before-" + path.name))
    with nodes_of(tmp_path, cli, ["--data", URL, *TINY, "--epochs", "1", "--ids-out", tmp_path,
                                  "--resume", checkpoint], nnodes=1) as nodes:
        out = finish(nodes)
    assert re.search(r"epoch 1/1 \(resumed\): .*shards: resumed from 2 ranks: 1 ranks x 7 samples and the 4 trained "
                     r"on before the checkpoint cover all 11 of the epoch exactly once", out), out
    resumed = ids_by_rank(tmp_path)[0]
    # The rest of the epoch is the one the local shards give from the same state.
    assert resumed == local_ids(packed["shards"], state=state, world_size=1, rank=0)
    # With the 4 the two ranks trained on before, every sample of the epoch once.
    before = [i for path in tmp_path.glob("before-ids-*.json") for i in json.loads(path.read_text())["epochs"]["0"]]
    assert len(before) == 4 and sorted(before + resumed) == list(range(SAMPLES))
