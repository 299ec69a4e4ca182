"""A pool buffer goes back only when its Batch is released and every export is gone."""

import gc
import itertools

import numpy as np
import pytest
import segfeed

torch = pytest.importorskip("torch")


def held(loader):
    return loader.stats()["outstanding_leases"]


def small(demo, **options):
    # 10 pairs in batches of 2: 5 batches an epoch, 2 pool buffers.
    return segfeed.Loader(demo, batch_size=2, size=(32, 48), threads=2, prefetch_batches=2, **options)


def test_export_survives_release_and_pool_cycles_with_identical_bytes(demo):
    with small(demo) as loader:
        it = iter(loader)
        batch = next(it)
        images, masks = np.asarray(batch.images), torch.from_dlpack(batch.masks)
        images_before, masks_before = images.copy(), masks.clone()
        kept_pointer = batch.images.data_ptr
        batch.release()
        # The one free buffer cycles through every later batch (4 in this
        # epoch, 5 in the next): the held one is never reused.
        cycles = 0
        for later in itertools.chain(it, loader):
            with later:
                assert later.images.data_ptr != kept_pointer
                cycles += 1
        assert cycles >= 3
        np.testing.assert_array_equal(images, images_before)
        assert torch.equal(masks, masks_before)
        assert held(loader) == 1


def test_buffer_returns_exactly_when_the_last_export_dies(demo):
    with small(demo) as loader:
        batch = next(iter(loader))
        a = np.asarray(batch.images)
        b = np.from_dlpack(batch.masks)
        t = torch.from_dlpack(batch.images)
        view = memoryview(batch.masks)
        capsule = batch.images.__dlpack__()  # never consumed
        tensor = batch.images                # the Tensor object itself
        assert held(loader) == 1
        batch.release()
        assert held(loader) == 1
        del a
        assert held(loader) == 1
        del b
        assert held(loader) == 1
        del t
        assert held(loader) == 1
        view.release()
        assert held(loader) == 1
        del capsule
        assert held(loader) == 1
        del tensor
        gc.collect()
        assert held(loader) == 0


def test_a_consumed_capsule_cannot_be_consumed_again(demo):
    with small(demo) as loader:
        with next(iter(loader)) as batch:
            capsule = batch.images.__dlpack__()
            first = torch.utils.dlpack.from_dlpack(capsule)
            with pytest.raises(Exception):
                torch.utils.dlpack.from_dlpack(capsule)
            assert first.data_ptr() == batch.images.data_ptr
        assert held(loader) == 1
        del capsule
        assert held(loader) == 1  # the tensor owns the DLPack deleter now
        del first
        assert held(loader) == 0


def test_released_batch_raises_and_release_is_idempotent(demo):
    with small(demo) as loader:
        batch = next(iter(loader))
        batch.release()
        batch.release()
        assert batch.released
        for name in ("images", "masks", "epoch", "index", "size", "sample_ids", "params", "layout"):
            with pytest.raises(segfeed.Error, match="released"):
                getattr(batch, name)
        assert "released" in repr(batch)


def test_with_block_releases_the_batch(demo):
    with small(demo) as loader:
        with next(iter(loader)) as batch:
            assert held(loader) == 1
        assert batch.released and held(loader) == 0


def test_batches_outlive_their_loader(demo):
    loader = small(demo)
    batch = next(iter(loader))
    expected = np.asarray(batch.images).copy()
    images = torch.from_dlpack(batch.images)
    del loader
    gc.collect()
    np.testing.assert_array_equal(np.asarray(batch.images), expected)
    np.testing.assert_array_equal(images.numpy(), expected)
    batch.release()
    del images


def test_rss_is_flat_over_epochs(demo):
    def rss_kib():
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))

    with small(demo) as loader:
        per_epoch = []
        for _ in range(20):
            for batch in loader:
                with batch:
                    torch.from_dlpack(batch.images).sum()
                    np.asarray(batch.masks).sum()
            per_epoch.append(rss_kib())
        assert loader.plan()["pool_bytes"] == loader.stats()["pool_bytes"]
        assert loader.plan()["scratch_bytes"] == loader.stats()["scratch_bytes"]
    drift = (max(per_epoch[1:]) - per_epoch[1]) / per_epoch[1]
    assert drift < 0.05, per_epoch
