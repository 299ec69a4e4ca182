"""A Loader used in a forked child, or made there after the parent's loaders ran, refuses at once."""

import time

import pytest

from conftest import run_python

RAW_FORK = """
    import os, sys, time
    import segfeed
    loader = segfeed.Loader(sys.argv[1], batch_size=2, size=(32, 48), threads=2)
    it = iter(loader)
    batch = next(it)                  # the epoch is running when we fork
    pid = os.fork()
    if pid == 0:
        start = time.monotonic()
        messages = []
        for use in (lambda: next(it), lambda: loader.epoch(1), loader.stats, loader.state_dict):
            try:
                use()
                messages.append("no error")
            except segfeed.Error as e:
                messages.append(str(e))
        elapsed = time.monotonic() - start
        ok = all("forked child" in m and "num_workers=0" in m for m in messages) and elapsed < 1.0
        print(messages[0] if ok else messages, elapsed, flush=True)
        batch.release()               # never gives the parent's buffer back
        sys.exit(0 if ok else 3)      # a normal exit: atexit and finalization run in the child
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, status
    batch.release()
    print("parent continues", [b.index for b in it])
"""

FORK_AFTER_FIRST_BATCH = """
    import os, sys
    import segfeed
    loader = segfeed.Loader(sys.argv[1], batch_size=2, size=(32, 48), threads=2)
    it = iter(loader)
    batch = next(it)
    pid = os.fork()
    if pid == 0:
        try:
            next(it)
        except segfeed.Error:
            pass
        sys.exit(3)                   # exit(), not os._exit: exit-time destructors would run
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status))
"""

DATALOADER_WORKERS = """
    import sys, time
    import torch, segfeed

    loader = segfeed.Loader(sys.argv[1], batch_size=2, size=(32, 48), threads=2)

    class Batches(torch.utils.data.IterableDataset):
        def __iter__(self):
            for batch in loader:
                with batch:
                    yield torch.from_dlpack(batch.images).clone()

    start = time.monotonic()
    try:
        for _ in torch.utils.data.DataLoader(Batches(), batch_size=None, num_workers=2):
            pass
        print("no error")
    except Exception as e:
        print(type(e).__name__, time.monotonic() - start, "num_workers=0" in str(e))
    # The main process's loader still works.
    print(len([b.release() for b in loader]))
"""


# A Loader made in the child, not inherited from the parent.
CHILD_LOADER = """
    import os, sys, time
    import segfeed
    parent = segfeed.Loader(sys.argv[1], batch_size=2, size=(32, 48), threads=2)
    if sys.argv[2] == "after an epoch":
        for batch in parent:
            batch.release()
        parent.close()
    pid = os.fork()
    if pid == 0:
        start = time.monotonic()
        try:
            child = segfeed.Loader(sys.argv[1], batch_size=2, size=(32, 48), threads=2)
            print("child batches", sum(1 for _ in child), flush=True)
        except segfeed.Error as e:
            print("child error", time.monotonic() - start, str(e), flush=True)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    print("child status", os.waitstatus_to_exitcode(status))
"""

PER_WORKER_LOADERS = """
    import sys, time
    import torch, segfeed

    data = sys.argv[1]
    validation = segfeed.Loader(data, batch_size=2, size=(32, 48), threads=2)
    print("main batches", len([b.release() for b in validation]))  # the main process's loader ran

    class PerWorker(torch.utils.data.IterableDataset):
        def __iter__(self):
            loader = segfeed.Loader(data, batch_size=2, size=(32, 48), threads=1)
            for batch in loader:
                with batch:
                    yield torch.from_dlpack(batch.images).clone()

    start = time.monotonic()
    try:
        for _ in torch.utils.data.DataLoader(PerWorker(), batch_size=None, num_workers=2):
            pass
        print("no error")
    except Exception as e:
        print("error", time.monotonic() - start, "multiprocessing_context='spawn'" in str(e))
"""


@pytest.mark.parametrize("when", ["before any epoch", "after an epoch"])
def test_a_loader_made_in_a_forked_child_works_or_is_refused_at_once(demo, when):
    # After the parent's first epoch oneTBB's workers exist, in the parent
    # only: a loader made in the child would wait for them forever.
    result = run_python(CHILD_LOADER, str(demo), when, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "child status 0"
    if when == "before any epoch":
        assert lines[0] == "child batches 5"
    else:
        _, word, elapsed, message = lines[0].split(" ", 3)
        assert word == "error" and float(elapsed) < 1.0
        assert "forked child" in message and "multiprocessing_context='spawn'" in message


def test_dataloader_workers_that_make_their_own_loader_after_the_main_one_ran_get_the_error(demo):
    pytest.importorskip("torch")
    result = run_python(PER_WORKER_LOADERS, str(demo), timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    main, outcome = result.stdout.splitlines()
    assert main == "main batches 5"
    word, elapsed, says_what_to_do = outcome.split()
    assert word == "error" and says_what_to_do == "True"
    assert float(elapsed) < 1.0 + 5.0  # the error at once; worker start-up is the rest


def test_raw_fork_child_gets_the_error_at_once_and_exits_cleanly(demo):
    start = time.monotonic()
    result = run_python(RAW_FORK, str(demo), timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "use it from the main process: torch.utils.data.DataLoader(..., num_workers=0)" in result.stdout
    assert "parent continues [1, 2, 3, 4]" in result.stdout
    assert time.monotonic() - start < 20


def test_forked_children_exit_with_their_status_without_hanging(demo):
    # A child forked while the loader works used to hang in exit() about one
    # time in ten: OpenCV's TBB arena waits in its destructor for threads the
    # child does not have. Fifteen fresh processes catch that most times.
    for _ in range(15):
        result = run_python(FORK_AFTER_FIRST_BATCH, str(demo), timeout=20)
        assert result.returncode == 0 and result.stdout.strip() == "3", result.stdout + result.stderr


def test_dataloader_workers_get_the_error(demo):
    pytest.importorskip("torch")
    result = run_python(DATALOADER_WORKERS, str(demo), timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    name, elapsed, says_what_to_do, batches = result.stdout.split()
    assert name in ("Error", "RuntimeError")  # DataLoader re-raises a worker's error, maybe wrapped
    assert says_what_to_do == "True"
    assert float(elapsed) < 1.0 + 5.0  # the error at once; worker start-up is the rest
    assert batches == "5"


def test_a_loader_cannot_be_pickled(demo):
    import pickle

    import segfeed

    with segfeed.Loader(demo, batch_size=2, size=(32, 48)) as loader:
        with pytest.raises(segfeed.Error, match="num_workers=0"):
            pickle.dumps(loader)
