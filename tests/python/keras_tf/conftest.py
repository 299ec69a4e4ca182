"""Fixtures of the TensorFlow tests, which run in their own pytest process
(importing TensorFlow takes seconds and its threads should not meet torch's)."""

from __future__ import annotations

import os
import subprocess

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def demo16(cli, tmp_path_factory):
    """16 Carvana-like pairs of 80x48: 4 batches of 4 at 32x32."""
    root = tmp_path_factory.mktemp("demo16") / "data"
    subprocess.run([str(cli), "make-demo", str(root), "--count", "16", "--width", "80", "--height", "48",
                    "--seed", "3"], check=True, capture_output=True)
    return root
