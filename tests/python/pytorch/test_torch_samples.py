"""The PyTorch samples run at a tiny size: the U-Net loop with its resume check, DDP under torchrun."""

import os
import re
import socket
import subprocess
import sys

import pytest

from conftest import REPO, make_demo

torch = pytest.importorskip("torch")

SAMPLES = REPO / "samples" / "python"
TINY = ["--size", "64", "--width", "4", "--threads", "2"]


def run(args, cli, timeout=300):
    env = {**os.environ, "SEGFEED_CLI": str(cli), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          env=env, cwd=REPO)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_torch_unet_prints_loss_input_wait_and_memory_and_resumes_byte_identically(cli):
    # No --data: the sample makes its own demo with the CLI, in a temporary folder.
    result = run([SAMPLES / "torch_unet.py", *TINY, "--demo-count", "12", "--demo-size", "96x64", "--batch-size", "2",
                  "--epochs", "2", "--validation-fraction", "0.25", "--resume-check"], cli)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert re.search(r"resume check: 10 steps; resumed at epoch 1 batch 2 after 2 steps; batches identical, "
                     r"losses identical, final weights identical", out), out
    epochs = re.findall(r"epoch (\d)/2: loss ([\d.]+), validation loss ([\d.]+) \((\d) batches\), (\d) steps in "
                        r"[\d.]+ s, input wait [\d.]+ s", out)
    assert [(e[0], e[3], e[4]) for e in epochs[:2]] == [("1", "2", "5"), ("2", "2", "5")], out
    memory = re.findall(r"input memory \(train \+ validation loaders\): plan at most ([\d.]+) MiB; pools ([\d.]+) MiB "
                        r"\w+, scratch [\d.]+ MiB, read buffers [\d.]+ MiB at peak; measured: RSS [-+][\d.]+ MiB when "
                        r"the first batch arrived, ([\d.]+) MiB in all now", out)
    assert len(memory) == len(epochs) >= 4, out
    plan, pools, _ = (float(v) for v in memory[0])
    assert 0 < pools <= plan


def test_torch_unet_trains_the_mmseg_like_recipe_and_resumes_it_byte_identically(cli, tmp_path):
    data = make_demo(cli, tmp_path / "data", 10, 96, 64)
    common = [SAMPLES / "torch_unet.py", "--data", data, *TINY, "--batch-size", "2", "--epochs", "1",
              "--validation-fraction", "0.2", "--recipe", "mmseg-like"]
    trained = run(common, cli)
    assert trained.returncode == 0, trained.stdout + trained.stderr
    assert "recipe mmseg-like;" in trained.stdout and "no augmentation (resize keep_ratio)" in trained.stdout
    checked = run([*common, "--resume-check"], cli)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "batches identical, losses identical, final weights identical" in checked.stdout, checked.stdout


def test_torch_unet_checkpoint_in_one_process_resumes_in_another(cli, tmp_path):
    data = make_demo(cli, tmp_path / "data", 10, 96, 64)
    checkpoint = tmp_path / "checkpoint.pt"
    common = [SAMPLES / "torch_unet.py", "--data", data, *TINY, "--batch-size", "2", "--epochs", "1",
              "--validation-fraction", "0.2", "--layout", "nhwc"]
    first = run([*common, "--checkpoint", checkpoint], cli)
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"checkpoint: {checkpoint} (epoch 1, next batch 2)" in first.stdout
    saved = torch.load(checkpoint)
    assert set(saved) == {"model", "optimizer", "loader", "torch_rng"}
    assert (saved["loader"]["epoch"], saved["loader"]["next_batch"]) == (0, 2)
    resumed = run([*common, "--resume", checkpoint], cli)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resumed from {checkpoint}: epoch 1 at batch 2" in resumed.stdout
    assert "epoch 1/1: " in resumed.stdout and "2 steps in" in resumed.stdout  # batches 2 and 3 of 4
    # The same batches from there on, so the same weights as the uninterrupted first run.
    for pattern in (r"epoch 1/1: .*(validation loss [\d.]+)", r"final weights: sha256 (\w+)"):
        assert re.search(pattern, resumed.stdout)[1] == re.search(pattern, first.stdout)[1]
    other = run([*common, "--resume", checkpoint, "--seed", "1"], cli)
    assert other.returncode != 0 and "other options" in other.stderr


def test_torchrun_two_ranks_have_disjoint_complete_shards_and_ddp_steps_run(cli, tmp_path):
    data = make_demo(cli, tmp_path / "data", 11, 96, 64)  # 11 over 2 ranks: 6 each, one padded
    result = run(["-m", "torch.distributed.run", "--nproc_per_node=2", "--redirects", "1", "--tee", "1",
                  "--master_addr", "127.0.0.1", "--master_port", str(free_port()),
                  SAMPLES / "ddp_torchrun.py", "--data", data, "--size", "64", "--width", "4", "--threads", "1",
                  "--batch-size", "4", "--epochs", "2"], cli)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [line for line in result.stdout.splitlines() if re.match(r"\[default0\]:epoch \d/2", line)]
    assert len(lines) == 2, result.stdout
    for line in lines:
        assert "2 DDP steps per rank (batch sizes [4, 2])" in line  # the last, uneven batch included
        assert "2 ranks x 6 samples cover all 11 of the epoch, disjoint but for 1 padding sample(s)" in line
        assert "DDP: the same parameters on every rank" in line
    assert "FAILED" not in result.stdout


def test_the_shard_check_catches_overlap_and_gaps():
    sys.path.insert(0, str(SAMPLES))
    try:
        from ddp_torchrun import check_shards
    finally:
        sys.path.remove(str(SAMPLES))
    assert "disjoint" in check_shards([[3, 0, 4], [1, 2, 3]], 5)
    with pytest.raises(AssertionError, match="cover"):
        check_shards([[0, 1], [0, 2]], 4)
    with pytest.raises(AssertionError, match="padding"):
        check_shards([[3, 0, 4], [1, 2, 2]], 5)
    with pytest.raises(AssertionError, match="different numbers"):
        check_shards([[0, 1], [2]], 3)
