"""A training loop killed with SIGKILL at random moments, resumed each time from its last checkpoint.

The stand-in trains one epoch a batch at a time and, after each finished step,
writes a checkpoint atomically (a temporary file renamed over the last): the
loader's state_dict() and the sample ids of every finished step. It is killed
with SIGKILL at a random moment, 50 times over the epoch (while it starts,
restores, waits for a batch, trains or writes), and restarted each time from
its last checkpoint. Over the whole epoch every sample reaches a finished step
exactly once. The batch a kill interrupts (delivered, its step not finished or
not yet checkpointed) is delivered again after the restart: those redeliveries
are counted, at most one per kill. At world size 2 each rank is a process of
its own with a checkpoint of its own, killed independently.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import textwrap
import time
from typing import Dict, List

import pytest

from conftest import make_demo

OPTIONS = dict(batch_size=1, size=32, seed=4, threads=1, prefetch_batches=2)
PAIRS = 60  # more steps than 50 kills take, so that they fall over the whole epoch
KILLS = 50

# argv: dataset, checkpoint, delivery log. RANK and WORLD_SIZE from the environment.
TRAINER = textwrap.dedent("""
    import json, os, sys, time
    import segfeed
    data, checkpoint, log = sys.argv[1:4]
    loader = segfeed.Loader(data, **{options!r})
    finished = []
    if os.path.exists(checkpoint):
        with open(checkpoint) as f:
            saved = json.load(f)
        loader.load_state_dict(saved["state"])
        finished = saved["finished"]
    if loader.state_dict()["epoch"] > 0:
        print("epoch done", flush=True)
        sys.exit(0)
    print("ready", flush=True)
    with open(log, "a") as deliveries:
        for batch in loader:
            ids = [int(i) for i in batch.sample_ids]
            batch.release()
            deliveries.write(json.dumps(ids) + "\\n")
            deliveries.flush()
            time.sleep(0.03)  # the step
            finished.extend(ids)
            partial = checkpoint + ".partial"
            with open(partial, "w") as f:
                json.dump({{"state": loader.state_dict(), "finished": finished}}, f)
            os.replace(partial, checkpoint)
    print("epoch done", flush=True)
""")


def run_rank(data: pathlib.Path, folder: pathlib.Path, rank: int, world_size: int, rng: random.Random,
             kills: int) -> Dict[str, int]:
    """Runs one rank to the end of epoch 0 through `kills` SIGKILLs; returns its counts."""
    checkpoint, log = folder / f"checkpoint{rank}.json", folder / f"deliveries{rank}.jsonl"
    code = TRAINER.format(options=OPTIONS)
    env = {**os.environ, "RANK": str(rank), "WORLD_SIZE": str(world_size)}
    killed = 0
    while True:
        child = subprocess.Popen([sys.executable, "-c", code, str(data), str(checkpoint), str(log)], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            if killed < kills:
                # One kill in five while it starts and restores, the others
                # within its first two steps or so.
                if rng.random() < 0.2:
                    time.sleep(rng.uniform(0.0, 0.25))
                elif child.stdout.readline().strip() == "ready":
                    time.sleep(rng.uniform(0.0, 0.06))
                if child.poll() is None:
                    child.send_signal(signal.SIGKILL)
                    child.wait(timeout=30)
                    killed += 1
                    continue
            out, err = child.communicate(timeout=120)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        assert child.returncode == 0, err
        if "epoch done" in out:
            break
    deliveries = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    finished = json.loads(checkpoint.read_text())["finished"]
    return {"kills": killed, "delivered": sum(len(ids) for ids in deliveries), "finished": finished}


@pytest.mark.parametrize("world_size", [1, 2])
def test_every_sample_reaches_a_finished_step_once_through_50_kills(cli, tmp_path, world_size):
    data = make_demo(cli, tmp_path / "data", PAIRS, 64, 48)
    # The ranks run at once, each killed on its own schedule.
    with concurrent.futures.ThreadPoolExecutor(world_size) as pool:
        ranks = list(pool.map(lambda rank: run_rank(data, tmp_path, rank, world_size, random.Random(rank),
                                                    KILLS // world_size), range(world_size)))
    finished: List[int] = [i for rank in ranks for i in rank["finished"]]
    assert sorted(finished) == list(range(PAIRS)), "every sample once, in a finished step"
    kills = sum(rank["kills"] for rank in ranks)
    redelivered = sum(rank["delivered"] for rank in ranks) - len(finished)
    assert kills == KILLS
    assert 0 <= redelivered <= kills  # at most the batch each kill interrupted
    print(f"world size {world_size}: {kills} kills, {len(finished)} samples trained once, "
          f"{redelivered} redelivered after a kill")
