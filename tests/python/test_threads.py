"""Calls on one Loader from several Python threads are serialized, not racing."""

import threading

import numpy as np
import segfeed


def test_threads_sharing_an_epoch_get_every_batch_exactly_once(demo):
    with segfeed.Loader(demo, batch_size=1, size=(32, 48), threads=2, prefetch_batches=4) as loader:
        for epoch in range(3):
            it = loader.epoch(epoch)
            seen, errors = [], []
            lock = threading.Lock()

            def consume():
                try:
                    for batch in it:
                        with batch:
                            total = float(np.asarray(batch.masks).sum())
                            with lock:
                                seen.append((batch.index, batch.sample_ids, total))
                        loader.stats()  # interleaved with next() in the other threads
                except Exception as e:  # noqa: BLE001 - reported below
                    errors.append(e)

            threads = [threading.Thread(target=consume) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not errors, errors
            assert sorted(index for index, _, _ in seen) == list(range(10))
            assert sorted(ids[0] for _, ids, _ in seen) == list(range(10))


def test_close_from_another_thread_ends_a_waiting_next(slow):
    loader = segfeed.Loader(slow, batch_size=24, size=64, threads=1, augment=None)
    it = iter(loader)
    got = []
    waiter = threading.Thread(target=lambda: got.extend(it))
    waiter.start()
    closer = threading.Timer(0.3, loader.close)
    closer.start()
    waiter.join(timeout=10)
    closer.join(timeout=10)
    assert not waiter.is_alive() and not closer.is_alive()
    assert got == [] and loader.closed
    assert list(it) == []
