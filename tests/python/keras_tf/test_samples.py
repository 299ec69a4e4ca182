"""samples/python/keras_unet.py runs, at a tiny size, as a user would run it."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[3]


def test_keras_unet_sample_trains_and_reports_its_input(demo16):
    sample = REPO / "samples/python/keras_unet.py"
    run = subprocess.run([sys.executable, str(sample), "--data", str(demo16), "--size", "32", "--batch-size", "4",
                          "--epochs", "2", "--width", "4", "--threads", "2"],
                         capture_output=True, text=True, timeout=300, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert run.returncode == 0, run.stderr[-3000:]
    epochs = re.findall(r"^epoch (\d): loss ([0-9.]+), val_loss ([0-9.]+), .*input waited ([0-9.]+) s for segfeed.*"
                        r"input memory: plan ([0-9.]+) MiB, peak held ([0-9.]+) MiB; process RSS", run.stdout, re.M)
    assert [e[0] for e in epochs] == ["0", "1"], run.stdout
    assert all(float(held) <= float(plan) for *_, plan, held in epochs)
    # 15 training pairs, 3 whole batches an epoch; Keras takes 2 more to infer the signature.
    # (samples loaded include what the loader prefetched before Keras restarted the epoch)
    assert re.search(r"^train loader: \d+ samples loaded, 0 skipped, 8 batches$", run.stdout, re.M), run.stdout
