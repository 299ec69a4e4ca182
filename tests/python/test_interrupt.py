"""Ctrl-C while Python waits for a batch raises KeyboardInterrupt promptly; the GIL is free meanwhile."""

import signal
import subprocess
import sys
import textwrap
import threading
import time

import segfeed

from conftest import make_demo, run_python

# Each child first takes SIGINT back to Python's default handler: a suite
# started in the background by a script (`cmd &` without job control) runs
# with SIGINT ignored, and a child would inherit that and never see a Ctrl-C.
WAITING = """
    import signal, sys, time
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import segfeed
    loader = segfeed.Loader(sys.argv[1], batch_size=24, size=64, threads=1, augment=None)
    it = iter(loader)
    print("waiting", flush=True)
    try:
        next(it)
        print("no interrupt", flush=True)
    except KeyboardInterrupt:
        print("interrupted", time.monotonic(), flush=True)
"""


def test_sigint_while_waiting_raises_keyboard_interrupt_within_half_a_second(slow):
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(WAITING), str(slow)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "waiting"
        time.sleep(0.3)  # well inside the ~2.5 s the first batch takes on one thread
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        child.kill()
    assert child.returncode == 0, err
    word, when = out.split()
    assert word == "interrupted"
    assert float(when) - sent < 0.5


def test_other_threads_run_while_next_waits(slow):
    counter = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            counter[0] += 1

    with segfeed.Loader(slow, batch_size=12, size=64, threads=1, augment=None) as loader:
        it = iter(loader)
        spinner = threading.Thread(target=spin)
        spinner.start()
        try:
            start = time.monotonic()
            before = counter[0]
            next(it).release()
            waited = time.monotonic() - start
            spun = counter[0] - before
        finally:
            stop.set()
            spinner.join()
    assert waited > 0.5
    assert spun > 10_000 * waited  # a held GIL would leave the spinner all but idle


# Batches of about 15 ms each: each is ready within next()'s 50 ms wait
# slice, so a Ctrl-C that comes while next() waits is noticed only once the
# batch is taken.
CAUGHT = """
    import signal, sys, threading, time
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import segfeed
    loader = segfeed.Loader(sys.argv[1], batch_size=1, size=(960, 1280), threads=1, prefetch_batches=2)
    main = threading.main_thread().ident
    def interrupt():
        for _ in range(8):
            time.sleep(0.05)
            signal.pthread_kill(main, signal.SIGINT)
    it = iter(loader)
    sender = threading.Thread(target=interrupt, daemon=True)
    sender.start()
    got, interrupts = [], 0
    while True:
        try:
            batch = next(it)
            got.append(batch.index)
            batch.release()
        except StopIteration:
            break
        except KeyboardInterrupt:
            interrupts += 1
    during_epoch = interrupts
    # The rest, if the epoch was quicker: until the sender is done and its
    # last signal handled. Not until 8 are counted: two signals that come
    # before the handler runs are one, and a count that stays short would
    # leave the child waiting until the test's timeout.
    while True:
        try:
            sender.join()
            time.sleep(0.2)
            break
        except KeyboardInterrupt:
            interrupts += 1
    print(during_epoch, " ".join(map(str, got)), flush=True)
"""


def test_a_ctrl_c_caught_around_next_loses_no_batch(cli, tmp_path):
    data = make_demo(cli, tmp_path / "data", 40, 1280, 960)
    result = run_python(CAUGHT, str(data), timeout=120)
    assert result.returncode == 0, result.stderr
    during_epoch, *got = result.stdout.split()
    assert int(during_epoch) >= 1
    assert list(map(int, got)) == list(range(40))
