"""segfeed.Loader: epochs, lengths, plan, stats, shards, close."""

import numpy as np
import pytest
import segfeed

OPTIONS = dict(batch_size=4, size=(32, 48), threads=2)


def test_iter_runs_epochs_in_turn_and_len_counts_batches(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        assert len(loader) == loader.batches_per_epoch == 3
        assert loader.samples_per_epoch == 10
        for expected_epoch in range(3):
            it = iter(loader)
            assert len(it) == 3 and it.epoch == expected_epoch
            batches = [(b.epoch, b.index, b.size) for b in it]
            assert batches == [(expected_epoch, 0, 4), (expected_epoch, 1, 4), (expected_epoch, 2, 2)]
        assert [b.epoch for b in loader.epoch(7)] == [7, 7, 7]
        assert next(iter(loader)).epoch == 8


def test_breaking_out_of_an_epoch_then_iter_starts_the_next(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        for batch in loader:
            break
        batch.release()
        assert next(iter(loader)).epoch == 1


def test_sample_ids_index_pairs_and_every_sample_comes_once_per_epoch(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        pairs = loader.pairs()
        assert len(pairs) == 10 and [p[0] for p in pairs] == sorted(p[0] for p in pairs)
        ids = [i for b in loader for i in b.sample_ids]
        assert sorted(ids) == list(range(10))
        shuffled_again = [i for b in loader for i in b.sample_ids]
        assert shuffled_again != ids


def test_params_describe_each_sample(demo):
    with segfeed.Loader(demo, augment=segfeed.Augment.none(), **OPTIONS) as loader:
        with next(iter(loader)) as batch:
            assert len(batch.params) == batch.size
            params = batch.params[0]
            assert {key: params[key] for key in list(params)[:10]} == {
                "flip_lr": False, "flip_ud": False, "angle_deg": 0.0, "scale_factor": 1.0, "crop_x": 0.5,
                "crop_y": 0.5, "contrast_factor": 1.0, "brightness_delta": 0.0, "saturation_factor": 1.0,
                "hue_delta": 0.0}
            # The geometry as applied: demo's 96x64 photos stretched to the output size.
            assert (params["source_width"], params["source_height"]) == (96.0, 64.0)
            assert (params["window_x"], params["window_y"], params["window_width"], params["window_height"]) == (
                0.0, 0.0, 96.0, 64.0)
    with segfeed.Loader(demo, augment=segfeed.Augment(flip_lr_probability=1.0), **OPTIONS) as loader:
        with next(iter(loader)) as batch:
            assert all(p["flip_lr"] for p in batch.params)


def test_normalisation(demo):
    mean, std = (0.5, 0.5, 0.5), (0.25, 0.25, 0.25)
    with segfeed.Loader(demo, augment=None, shuffle=False, **OPTIONS) as plain, \
            segfeed.Loader(demo, augment=None, shuffle=False, mean=mean, std=std, **OPTIONS) as normalised:
        with next(iter(plain)) as a, next(iter(normalised)) as b:
            np.testing.assert_allclose(np.asarray(b.images), (np.asarray(a.images) - 0.5) / 0.25, atol=1e-5)


def test_plan_is_what_the_loader_allocated(demo):
    with segfeed.Loader(demo, prefetch_batches=3, **OPTIONS) as loader:
        plan, stats = loader.plan(), loader.stats()
        assert plan["pool_buffers"] == stats["pool_buffers"] == 3
        assert plan["pool_bytes"] == stats["pool_bytes"]
        assert plan["scratch_bytes"] == stats["scratch_bytes"]
        assert plan["image_bytes_per_sample"] == 32 * 48 * 3 * 4
        assert plan["total_bytes"] >= plan["pool_bytes"] + plan["scratch_bytes"]


def test_stats(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        for batch in loader:
            batch.release()
        stats = loader.stats()
    assert stats["pool_kind"] in ("cuda_host", "mlocked", "pageable")
    assert stats["batches_delivered"] == 3 and stats["samples_loaded"] == 10
    assert stats["outstanding_leases"] == 0 and stats["skipped_files"] == [] and stats["unpaired_files"] == []
    assert set(stats["stage_seconds"]) == {"read", "decode_photo_jpeg", "decode_photo_jpeg_roi", "decode_photo_png",
                                           "decode_mask_png", "decode_mask_gif", "warp", "jitter", "convert",
                                           "consumer_wait"}
    assert stats["threads"] == 2 and stats["in_flight_bound"] == 8


@pytest.mark.parametrize("data, labels, mask_stage", [("demo", {}, "decode_mask_gif"),
                                                      ("label_scenes", dict(mask_mode="labels", num_classes=5),
                                                       "decode_mask_png")])
def test_stage_seconds_time_each_decode_under_its_format(request, data, labels, mask_stage):
    # make-demo's JPEG photos, with its GIF car masks or its PNG label maps.
    with segfeed.Loader(request.getfixturevalue(data), **OPTIONS, **labels) as loader:
        for batch in loader:
            batch.release()
        stages = loader.stats()["stage_seconds"]
    decoded = {name for name, seconds in stages.items() if name.startswith("decode_") and seconds > 0}
    assert decoded == {"decode_photo_jpeg", mask_stage}


def test_a_later_epoch_supersedes_an_earlier_iterator(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        first = iter(loader)
        next(first).release()
        second = loader.epoch(5)
        with pytest.raises(segfeed.Error, match="superseded"):
            next(first)
        assert [b.epoch for b in second] == [5, 5, 5]


def test_close_is_idempotent_and_ends_iteration(demo):
    loader = segfeed.Loader(demo, **OPTIONS)
    it = iter(loader)
    batch = next(it)
    loader.close()
    loader.close()
    assert loader.closed
    assert list(it) == []
    with pytest.raises(segfeed.Error, match="closed"):
        iter(loader)
    assert np.asarray(batch.images).shape == (4, 32, 48, 3)  # batches stay valid
    batch.release()
    assert loader.stats()["outstanding_leases"] == 0


def test_images_and_masks_folders(demo):
    with segfeed.Loader(images=demo / "train", masks=demo / "train_masks", **OPTIONS) as a, \
            segfeed.Loader(demo / "train", masks=demo / "train_masks", **OPTIONS) as b:
        assert a.pairs() == b.pairs() == segfeed.Loader(demo, **OPTIONS).pairs()
        # Relative folders are under data.
        assert segfeed.Loader(demo, images="train", masks="train_masks", **OPTIONS).pairs() == a.pairs()
    with pytest.raises(segfeed.ConfigError, match="images needs masks"):
        segfeed.Loader(demo, images="train")


def test_shards_from_arguments_and_from_the_environment(demo, monkeypatch):
    def ids(**options):
        with segfeed.Loader(demo, batch_size=1, size=(32, 48), threads=2, **options) as loader:
            return loader.rank, loader.world_size, sorted(i for b in loader for i in b.sample_ids)

    r0, r1 = ids(rank=0, world_size=2), ids(rank=1, world_size=2)
    assert r0[:2] == (0, 2) and r1[:2] == (1, 2)
    assert sorted(r0[2] + r1[2]) == list(range(10))
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    assert ids() == r1
    assert ids(rank=0, world_size=1)[:2] == (0, 1)  # explicit arguments win
    monkeypatch.setenv("WORLD_SIZE", "one")
    with pytest.raises(segfeed.ConfigError, match="WORLD_SIZE must be a non-negative integer"):
        ids()


def test_subsets_split_by_the_seed(demo):
    def ids(subset):
        with segfeed.Loader(demo, batch_size=1, size=(32, 48), subset=subset, validation_fraction=0.3) as loader:
            return {i for b in loader for i in b.sample_ids}

    train, validation = ids("train"), ids("val")
    assert len(validation) == 3 and not train & validation and len(train | validation) == 10


def test_repr_says_what_it_streams(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        assert "batch_size=4" in repr(loader) and "3 batches per epoch" in repr(loader)
        with next(iter(loader)) as batch:
            assert repr(batch) == "<segfeed.Batch epoch 0 index 0: 4 samples, images 4x32x48x3 float32 nhwc, " \
                                  "masks float32>"
            assert repr(batch.images) == "segfeed.Tensor(shape=(4, 32, 48, 3), dtype=float32)"
