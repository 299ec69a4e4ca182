"""segfeed.tf.distributed_dataset_fn: a loader per input pipeline under tf.distribute.

The strategies run samples/python/keras_distributed.py in subprocesses: a
MirroredStrategy over two logical CPU devices (which must be configured
before TensorFlow initialises its devices, so not in this process), and a
MultiWorkerMirroredStrategy of two worker processes on 127.0.0.1. The sample
traces every image a replica trained on back to its sample id, and writes
them to a JSON report that the tests check.
"""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import tensorflow as tf

import segfeed
import segfeed.tf
from streams import digest

REPO = pathlib.Path(__file__).resolve().parents[3]
SAMPLE = REPO / "samples/python/keras_distributed.py"
OPTIONS = dict(size=(24, 40), seed=5, threads=1)


def _context(pipelines: int, pipeline: int, replicas: int) -> tf.distribute.InputContext:
    return tf.distribute.InputContext(num_input_pipelines=pipelines, input_pipeline_id=pipeline,
                                      num_replicas_in_sync=replicas)


def _sample_rows(root, epoch, **options):
    """Per sample of `epoch`, in order: the digest of its image, from an unsharded loader."""
    with segfeed.Loader(root, batch_size=1, **{**OPTIONS, **options}) as loader:
        return {digest(np.asarray(batch.images)[0]): batch.sample_ids[0] for batch in loader.epoch(epoch)}


def _sample_ids(elements, index):
    return [[index[digest(row)] for row in images.numpy()] for images, _ in elements]


def test_a_pipeline_of_one_replica_is_its_shard_in_per_replica_batches(demo16):
    # MultiWorkerMirroredStrategy's second worker of two, one device each: shard 1/2, batches of 8 / 2.
    with segfeed.tf.distributed_dataset_fn(8, demo16, **OPTIONS) as dataset_fn:
        data = dataset_fn(_context(pipelines=2, pipeline=1, replicas=2))
        (loader,) = dataset_fn.loaders
        assert (loader.rank, loader.world_size, loader.options["batch_size"]) == (1, 2, 4)
        assert data.element_spec[0].shape.as_list() == [4, 24, 40, 3] and int(data.cardinality()) == 2
        with segfeed.Loader(demo16, batch_size=4, rank=1, world_size=2, **OPTIONS) as reference:
            assert [digest(images.numpy()) for images, _ in data] == [digest(b.images) for b in reference.epoch(0)]
    assert loader.closed


def test_a_pipeline_of_two_replicas_splits_each_batch_between_them(demo16, demo):
    # MirroredStrategy over two devices, one pipeline: batches of 8 (2 steps of 2 x 4); 16 samples, disjoint.
    with segfeed.tf.distributed_dataset_fn(8, demo16, **OPTIONS) as dataset_fn:
        data = dataset_fn(_context(pipelines=1, pipeline=0, replicas=2))
        assert dataset_fn.loaders[0].options["batch_size"] == 8
        assert data.element_spec[0].shape.as_list() == [4, 24, 40, 3] and int(data.cardinality()) == 4
        ids = _sample_ids(data, _sample_rows(demo16, 0))
        assert [len(piece) for piece in ids] == [4, 4, 4, 4]
        assert sorted(sum(ids, [])) == list(range(16))
        assert sorted(sum(_sample_ids(data, _sample_rows(demo16, 1)), [])) == list(range(16)), "the next pass"
    # 10 samples in batches of 8: the short last batch of 2 is shared 1 + 1.
    with segfeed.tf.distributed_dataset_fn(8, demo, **OPTIONS) as dataset_fn:
        data = dataset_fn(_context(pipelines=1, pipeline=0, replicas=2))
        assert data.element_spec[0].shape.as_list() == [None, 24, 40, 3]
        ids = _sample_ids(data, _sample_rows(demo, 0))
        assert [len(piece) for piece in ids] == [4, 4, 1, 1] and sorted(sum(ids, [])) == list(range(10))


def test_what_cannot_work_is_refused_naming_the_values(demo16):
    for name, value in (("batch_size", 4), ("rank", 0), ("world_size", 2)):
        with pytest.raises(segfeed.ConfigError, match=rf"sets {name} itself .*got {name}={value}\): leave it out"):
            segfeed.tf.distributed_dataset_fn(8, demo16, **{name: value})
    with pytest.raises(segfeed.ConfigError, match=r"global_batch_size must be an int >= 1 \(got 0\)"):
        segfeed.tf.distributed_dataset_fn(0, demo16)
    with pytest.raises(segfeed.ConfigError, match="epochs must be None or an int >= 1"):
        segfeed.tf.distributed_dataset_fn(8, demo16, epochs=0)
    with segfeed.tf.distributed_dataset_fn(10, demo16, **OPTIONS) as dataset_fn:
        with pytest.raises(segfeed.ConfigError, match=r"global_batch_size=10 is not a multiple of the 4 replicas in "
                                                      r"sync: pick a multiple of 4 \(8 or 12\)"):
            dataset_fn(_context(pipelines=1, pipeline=0, replicas=4))
        assert dataset_fn.loaders == []
    # 3 replicas of one worker, batches of 6: the last batch of 16 % 6 = 4 samples cannot be shared evenly.
    with segfeed.tf.distributed_dataset_fn(6, demo16, **OPTIONS) as dataset_fn:
        with pytest.raises(segfeed.ConfigError, match=r"last batch .* has 4 samples \(16 in the shard, 6 a step on "
                                                      r"this worker\), which this worker's 3 replicas cannot share "
                                                      r"evenly: pass drop_last=True"):
            dataset_fn(_context(pipelines=1, pipeline=0, replicas=3))
        assert dataset_fn.loaders == [], "the loader made was closed again, not kept"
    with segfeed.tf.distributed_dataset_fn(6, demo16, drop_last=True, **OPTIONS) as dataset_fn:
        assert int(dataset_fn(_context(pipelines=1, pipeline=0, replicas=3)).cardinality()) == 6


def _sample_env() -> dict:
    env = {key: value for key, value in os.environ.items() if key != "TF_CONFIG"}
    return {**env, "TF_CPP_MIN_LOG_LEVEL": "2"}


def _check_report_epochs(epochs, samples: int) -> None:
    """Every epoch's replicas got disjoint samples covering the epoch; the loss fell."""
    for epoch in epochs:
        seen = [sample for replica in epoch["samples"] for sample in replica]
        assert sorted(seen) == list(range(samples)), epoch
    losses = [epoch["loss"] for epoch in epochs]
    assert losses[-1] < losses[0], losses


def test_mirrored_strategy_over_two_cpu_devices_trains_with_model_fit(demo16, tmp_path):
    started = time.monotonic()
    report = tmp_path / "report.json"
    run = subprocess.run([sys.executable, str(SAMPLE), "--data", str(demo16), "--cpu-replicas", "2", "--size", "32",
                          "--global-batch-size", "8", "--epochs", "3", "--report", str(report)],
                         capture_output=True, text=True, timeout=170, env=_sample_env())
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(report.read_text())
    assert result["replicas"] == 2 and len(result["epochs"]) == 3
    assert all(len(replica) == 8 for epoch in result["epochs"] for replica in epoch["samples"])
    _check_report_epochs([{"samples": epoch["samples"], "loss": epoch["loss"]} for epoch in result["epochs"]], 16)
    # Keras 3 fit under a strategy first takes a batch from a pass of its own to build the model: that pass is
    # loader epoch 0, and the Keras epochs are loader epochs 1, 2, 3.
    assert [epoch["loader_epoch"] for epoch in result["epochs"]] == [1, 2, 3]
    print(f"\nMirroredStrategy test: {time.monotonic() - started:.1f} s")


def _free_ports(count: int) -> list:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def test_multi_worker_mirrored_strategy_of_two_processes_trains_disjoint_shards(demo16, tmp_path):
    started = time.monotonic()
    cluster = {"worker": [f"127.0.0.1:{port}" for port in _free_ports(2)]}
    workers = []
    try:
        for index in range(2):
            env = {**_sample_env(), "TF_CONFIG": json.dumps({"cluster": cluster,
                                                             "task": {"type": "worker", "index": index}})}
            log = open(tmp_path / f"worker{index}.log", "w")
            workers.append((subprocess.Popen(
                [sys.executable, str(SAMPLE), "--data", str(demo16), "--strategy", "multi-worker", "--size", "32",
                 "--global-batch-size", "8", "--epochs", "3", "--report", str(tmp_path / f"worker{index}.json")],
                stdout=log, stderr=subprocess.STDOUT, env=env), log))
        deadline = started + 170  # a few seconds alone on 2 cores; minutes when the machine is busy
        for process, _ in workers:
            process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        for process, log in workers:
            if process.poll() is None:
                process.kill()
                process.wait()
            log.close()
    logs = [(tmp_path / f"worker{index}.log").read_text()[-3000:] for index in range(2)]
    assert [process.returncode for process, _ in workers] == [0, 0], "\n".join(logs)
    reports = [json.loads((tmp_path / f"worker{index}.json").read_text()) for index in range(2)]
    assert [report["replicas"] for report in reports] == [2, 2]
    for epoch, (first, second) in enumerate(zip(reports[0]["epochs"], reports[1]["epochs"])):
        assert first["loader_epoch"] == second["loader_epoch"] == epoch
        assert len(first["samples"][0]) == len(second["samples"][0]) == 8
        assert first["loss"] == second["loss"], "the loss is reduced over both workers"
    _check_report_epochs([{"samples": first["samples"] + second["samples"], "loss": first["loss"]}
                          for first, second in zip(reports[0]["epochs"], reports[1]["epochs"])], 16)
    assert reports[0]["weights"] == reports[1]["weights"], "the workers' models stayed in sync"
    print(f"\nMultiWorkerMirroredStrategy test: {time.monotonic() - started:.1f} s")
