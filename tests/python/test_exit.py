"""The interpreter exits cleanly (status 0, in seconds) whatever segfeed objects are alive."""

import textwrap
import time

import pytest

from conftest import run_python

PRELUDE = """
    import sys, threading
    import numpy as np
    import segfeed
    data = sys.argv[1]
"""

CASES = {
    "live loader, batches and exports mid-epoch": """
        import torch
        loader = segfeed.Loader(data, batch_size=2, size=(32, 48), threads=2, prefetch_batches=3)
        it = iter(loader)
        batch = next(it)
        images, masks = np.asarray(batch.images), torch.from_dlpack(batch.masks)
        view, capsule = memoryview(batch.images), batch.masks.__dlpack__()
        other = next(it)
    """,
    "after close() with batches and exports alive": """
        loader = segfeed.Loader(data, batch_size=2, size=(32, 48), threads=2)
        batch = next(iter(loader))
        images = np.from_dlpack(batch.images)
        loader.close()
        loader.close()
    """,
    "after an exception mid-epoch": """
        loader = segfeed.Loader(data, batch_size=2, size=(32, 48), threads=2)
        try:
            for batch in loader:
                kept = np.asarray(batch.images)
                raise ValueError("trainer failed")
        except ValueError:
            pass
    """,
    "a thread waiting for a batch": """
        loader = segfeed.Loader(sys.argv[2], batch_size=24, size=64, threads=1, augment=None)
        waiter = threading.Thread(target=lambda: list(loader))
        waiter.start()
    """,
    "a daemon thread waiting for a batch": """
        loader = segfeed.Loader(sys.argv[2], batch_size=24, size=64, threads=1, augment=None)
        threading.Thread(target=lambda: list(loader), daemon=True).start()
    """,
    "TensorFlow tensors alive": """
        import tensorflow as tf
        loader = segfeed.Loader(data, batch_size=2, size=(32, 48), threads=2)
        batch = next(iter(loader))
        images = tf.experimental.dlpack.from_dlpack(batch.images.__dlpack__())
        batch.release()
    """,
}


@pytest.mark.parametrize("case", list(CASES))
def test_exit_status_is_zero(case, demo, slow):
    if "TensorFlow" in case:
        pytest.importorskip("tensorflow")
    if "import torch" in CASES[case]:
        pytest.importorskip("torch")
    start = time.monotonic()
    result = run_python(textwrap.dedent(PRELUDE) + textwrap.dedent(CASES[case]), str(demo), str(slow), timeout=60)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "leaked" not in result.stderr and "terminate" not in result.stderr, result.stderr[-3000:]
    assert "Exception in thread" not in result.stderr, result.stderr[-3000:]
    assert time.monotonic() - start < 20


def test_a_training_thread_that_outlives_the_main_thread_trains_to_its_end(demo):
    # Non-daemon threads are joined before the loaders close at exit: the
    # thread's loop sees its whole epoch, not one that ends where main did.
    result = run_python(textwrap.dedent(PRELUDE) + textwrap.dedent("""
        import time
        loader = segfeed.Loader(data, batch_size=2, size=(32, 48), threads=2)
        def train():
            batches = 0
            for epoch in range(2):
                for batch in loader:
                    batch.release()
                    time.sleep(0.05)
                    batches += 1
            print("trained", batches, flush=True)
        threading.Thread(target=train).start()
    """), str(demo), timeout=60)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["trained", "10"]
    assert "Exception in thread" not in result.stderr, result.stderr[-3000:]


def test_an_uncaught_exception_mid_epoch_exits_with_its_status_not_a_crash(demo):
    result = run_python(textwrap.dedent(PRELUDE) + textwrap.dedent("""
        loader = segfeed.Loader(data, batch_size=2, size=(32, 48), threads=2)
        for batch in loader:
            kept = np.asarray(batch.images)
            raise ValueError("trainer failed")
    """), str(demo), timeout=60)
    assert result.returncode == 1
    assert result.stderr.rstrip().endswith("ValueError: trainer failed")
