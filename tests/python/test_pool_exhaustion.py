"""A trainer holding every buffer gets PoolExhaustedError at once, never a deadlock."""

import time

import numpy as np
import segfeed


def test_holding_every_buffer_raises_within_a_second_and_the_loader_goes_on(demo):
    with segfeed.Loader(demo, batch_size=2, size=(32, 48), threads=2, prefetch_batches=2) as loader:
        it = iter(loader)
        first, second = next(it), next(it)
        start = time.monotonic()
        try:
            next(it)
        except segfeed.PoolExhaustedError as e:
            message = str(e)
        else:
            raise AssertionError("no PoolExhaustedError")
        assert time.monotonic() - start < 1.0
        assert "holds all 2 pool buffers" in message and "prefetch_batches = 2" in message
        first.release()
        third = next(it)
        assert third.index == 2
        second.release()
        third.release()
        assert [b.index for b in it] == [3, 4]


def test_an_export_holds_its_buffer_like_the_batch(demo):
    with segfeed.Loader(demo, batch_size=2, size=(32, 48), threads=2, prefetch_batches=1) as loader:
        it = iter(loader)
        batch = next(it)
        kept = np.asarray(batch.images)
        batch.release()
        start = time.monotonic()
        try:
            next(it)
        except segfeed.PoolExhaustedError:
            pass
        else:
            raise AssertionError("no PoolExhaustedError while an export holds the only buffer")
        assert time.monotonic() - start < 1.0
        del kept
        assert next(it).index == 1


def test_is_a_segfeed_error():
    assert issubclass(segfeed.PoolExhaustedError, segfeed.Error)
