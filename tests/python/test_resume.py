"""state_dict() in one process, load_state_dict() in another: the rest of the epoch, byte for byte."""

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest
import segfeed

from bench_digest import batch_digest
from conftest import run_python

OPTIONS = dict(batch_size=2, size=(32, 48), seed=3, threads=2)

# Runs in a fresh interpreter: argv = dataset, state file, mode.
RESUMING = """
    import json, sys
    import segfeed
    sys.path.insert(0, {tests!r})
    from bench_digest import batch_digest
    data, state_file, mode = sys.argv[1:4]
    loader = segfeed.Loader(data, **{options!r})
    if mode == "save":
        it = iter(loader)                       # epoch 0
        for _ in range(2):
            next(it).release()
        state = loader.state_dict()
        with open(state_file, "w") as f:
            json.dump(state, f)
    else:
        with open(state_file) as f:
            loader.load_state_dict(json.load(f))
        print(json.dumps([[b.epoch, b.index, batch_digest(b)] for b in loader]))
"""


def uninterrupted(demo, epoch):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        return [[b.epoch, b.index, batch_digest(b)] for b in loader.epoch(epoch)]


def run_resuming(demo, state_file, mode):
    code = RESUMING.format(tests=os.path.dirname(__file__), options=OPTIONS)
    result = run_python(code, str(demo), str(state_file), mode)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_new_process_continues_the_epoch_with_identical_batches(demo, tmp_path):
    state_file = tmp_path / "state.json"
    run_resuming(demo, state_file, "save")
    state = json.loads(state_file.read_text())
    assert (state["version"], state["epoch"], state["next_batch"], state["seed"]) == (3, 0, 2, 3)
    assert (state["rank"], state["world_size"]) == (0, 1)
    resumed = json.loads(run_resuming(demo, state_file, "load"))
    assert resumed == uninterrupted(demo, 0)[2:]


def test_epoch_with_first_batch_gives_the_same_batches(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        assert [[b.epoch, b.index, batch_digest(b)] for b in loader.epoch(1, 3)] == uninterrupted(demo, 1)[3:]


def test_state_after_a_finished_epoch_is_the_next_epoch(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        assert (loader.state_dict()["epoch"], loader.state_dict()["next_batch"]) == (0, 0)
        for batch in loader:
            batch.release()
        state = loader.state_dict()
        assert (state["epoch"], state["next_batch"]) == (1, 0)
        fresh = segfeed.Loader(demo, **OPTIONS)
        fresh.load_state_dict(state)
        assert [b.epoch for b in fresh] == [1] * fresh.batches_per_epoch
        assert next(iter(fresh)).epoch == 2  # then on as usual


def test_state_after_leaving_an_epoch_early_is_where_iter_goes_next(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        for index, batch in enumerate(loader):
            batch.release()
            if index == 1:
                inside = loader.state_dict()
                break
        after = loader.state_dict()  # the loop's iterator is gone: epoch 0 was abandoned
        assert (inside["epoch"], inside["next_batch"]) == (0, 2)
        assert (after["epoch"], after["next_batch"]) == (1, 0)
        superseded = loader.epoch(1)
        next(superseded).release()
        it = loader.epoch(2)
        next(it).release()
        del superseded  # an iterator a later epoch superseded: dropping it changes nothing
        assert (loader.state_dict()["epoch"], loader.state_dict()["next_batch"]) == (2, 1)
        fresh = segfeed.Loader(demo, **OPTIONS)
        fresh.load_state_dict(after)
        assert next(iter(fresh)).epoch == 1


def test_load_state_dict_stops_the_iterators_of_the_abandoned_epoch(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        it = iter(loader)
        next(it).release()
        loader.load_state_dict(loader.state_dict())
        with pytest.raises(segfeed.Error, match="superseded"):
            next(it)
        assert [b.index for b in loader] == [1, 2, 3, 4]


def test_changed_options_are_refused_naming_them(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        state = loader.state_dict()
    with segfeed.Loader(demo, **{**OPTIONS, "seed": 4, "layout": "nchw"}) as other:
        with pytest.raises(segfeed.ConfigError, match=r"other options \(layout 'nhwc' -> 'nchw', seed 3 -> 4\)"):
            other.load_state_dict(state)
    # What does not change the bytes may change: threads, prefetch.
    with segfeed.Loader(demo, **{**OPTIONS, "threads": 1, "prefetch_batches": 3}) as same_stream:
        same_stream.load_state_dict(state)
    # Another shard resumes too (re-sharding the rest of the epoch: test_resume_world_size.py).
    with segfeed.Loader(demo, **OPTIONS, rank=1, world_size=2) as shard:
        shard.load_state_dict(state)


def test_changed_dataset_is_refused(demo, tmp_path):
    data = shutil.copytree(demo, tmp_path / "data")
    with segfeed.Loader(data, **OPTIONS) as loader:
        state = loader.state_dict()
    # One more pair.
    images, masks = data / "train", data / "train_masks"
    shutil.copy(next(images.iterdir()), images / "zzzz_01.jpg")
    shutil.copy(next(masks.iterdir()), masks / "zzzz_01_mask.gif")
    with segfeed.Loader(data, **OPTIONS) as changed:
        with pytest.raises(segfeed.ConfigError, match="the dataset changed"):
            changed.load_state_dict(state)
    # Same names, other bytes.
    (images / "zzzz_01.jpg").unlink()
    (masks / "zzzz_01_mask.gif").unlink()
    victim = sorted(images.iterdir())[0]
    victim.write_bytes(victim.read_bytes() + b"\0" * 10)
    with segfeed.Loader(data, **OPTIONS) as changed:
        with pytest.raises(segfeed.ConfigError, match="the dataset changed"):
            changed.load_state_dict(state)


def test_a_state_dict_is_plain_data(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        state = loader.state_dict()
    assert json.loads(json.dumps(state)) == state
    with pytest.raises(segfeed.ConfigError, match="version"):
        segfeed.Loader(demo, **OPTIONS).load_state_dict({"version": 99})


def test_a_state_dict_of_an_earlier_version_is_refused_saying_so(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        state = loader.state_dict()
        # Version 1 states had their digests computed in Python.
        old = {**state, "version": 1, "options": {"batch_size": 2}, "options_digest": "0" * 16}
        with pytest.raises(segfeed.ConfigError, match=r"of version 2 to 3 \(got version 1: a state of an earlier segfeed"):
            loader.load_state_dict(old)
        with pytest.raises(segfeed.ConfigError, match="a dict was expected"):
            loader.load_state_dict([state])
        with pytest.raises(segfeed.ConfigError, match="^state_dict: no listing_digest$"):
            loader.load_state_dict({key: value for key, value in state.items() if key != "listing_digest"})
        with pytest.raises(segfeed.ConfigError, match=r"^state_dict: epoch must be an integer in \[0, 9223372036854775806\] \(got '0'\)$"):
            loader.load_state_dict({**state, "epoch": "0"})


def test_the_last_epoch_is_refused_before_it_wraps(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        state = loader.state_dict()
        with pytest.raises(segfeed.ConfigError, match=r"epoch must be in \[0, 9223372036854775806\] "
                                                      r"\(got 9223372036854775807\)"):
            loader.load_state_dict({**state, "epoch": 2**63 - 1})
        with pytest.raises(segfeed.ConfigError, match="epoch must be in"):
            loader.epoch(2**63 - 1)


def test_an_exception_leaving_the_loop_keeps_the_epoch_where_it_stopped(demo):
    # A break abandons the epoch (above); an exception must not: a checkpoint
    # in except: or finally: continues the epoch at the first batch not delivered.
    with segfeed.Loader(demo, **OPTIONS) as loader:
        try:
            for batch in loader:
                index = batch.index
                batch.release()
                if index == 1:
                    raise RuntimeError("the trainer failed")
        except RuntimeError:
            state = loader.state_dict()
        assert (state["epoch"], state["next_batch"]) == (0, 2)
        assert [[b.epoch, b.index, batch_digest(b)] for b in loader] == uninterrupted(demo, 0)[2:]
    with segfeed.Loader(demo, **OPTIONS) as fresh:
        fresh.load_state_dict(state)
        assert [b.index for b in fresh] == [2, 3, 4]


# Preemption as clusters do it: SIGTERM, a handler that exits, a checkpoint in finally:.
PREEMPTED = """
    import json, signal, sys
    import segfeed
    data, state_file = sys.argv[1:3]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
    loader = segfeed.Loader(data, **{options!r})
    delivered = []
    try:
        for batch in loader:
            delivered.append(batch.index)
            batch.release()
            if len(delivered) == 2:
                print("training", flush=True)
                signal.pause()  # the trainer's step, when SIGTERM comes
    finally:
        with open(state_file, "w") as f:
            json.dump({{"state": loader.state_dict(), "delivered": delivered}}, f)
"""


def test_a_checkpoint_written_in_finally_after_sigterm_continues_the_epoch(demo, tmp_path):
    state_file = tmp_path / "state.json"
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(PREEMPTED.format(options=OPTIONS)), str(demo),
                              str(state_file)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "training"
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=30)
    finally:
        child.kill()
    assert child.returncode == 3, err
    saved = json.loads(state_file.read_text())
    assert saved["delivered"] == [0, 1]
    assert (saved["state"]["epoch"], saved["state"]["next_batch"]) == (0, 2)


def test_known_bad_pairs_are_plain_data_in_the_state(demo_copy):
    # A file found bad under skip stays out after a resume (the C++ tests show
    # the stream); here: how state_dict() carries it, and what it refuses.
    victim = sorted((demo_copy / "train").iterdir())[3]
    victim.write_bytes(b"x" * 16 + victim.read_bytes()[16:])
    with segfeed.Loader(demo_copy, **OPTIONS, on_bad_file="skip") as loader:
        for batch in loader:
            batch.release()
        state = loader.state_dict()
    assert json.loads(json.dumps(state)) == state
    ((pair, kind),) = state["known_bad"]
    assert segfeed.Loader(demo_copy, **OPTIONS).pairs()[pair][1] == str(victim)
    with segfeed.Loader(demo_copy, **OPTIONS, on_bad_file="skip") as resumed:
        resumed.load_state_dict(state)
        assert resumed.state_dict()["known_bad"] == state["known_bad"]
        for bad in ([[pair, "no_such_kind"]], [[pair]], "3", [[len(resumed.pairs()), kind]]):
            with pytest.raises(segfeed.ConfigError, match="known_bad"):
                resumed.load_state_dict({**state, "known_bad": bad})
