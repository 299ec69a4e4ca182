"""Predictions back on the photo: segfeed.unwarp inverts each sample's geometry, so a label
map warped by the loader and unwarped agrees with the source wherever the window kept it."""

import numpy as np
import pytest
import segfeed

SOURCE = (64, 96)  # label_scenes' photos: 96x64


def source_masks(label_scenes):
    """The label maps as they are: a loader at the photos' own size that changes nothing."""
    with segfeed.Loader(label_scenes, batch_size=16, size=SOURCE, shuffle=False, augment=None,
                        mask_mode="labels", num_classes=5, mask_dtype="uint8") as loader:
        batch = next(iter(loader))
        with batch:
            for params in batch.params:
                assert segfeed.unwarp_matrix(params).tolist() == [[1, 0, 0], [0, 1, 0]]
            return {i: np.asarray(batch.masks)[k, :, :, 0].copy() for k, i in enumerate(batch.sample_ids)}


@pytest.mark.parametrize("resize", ["keep_ratio", "short_side", "stretch"])
def test_a_label_map_warped_and_unwarped_agrees_with_its_source(label_scenes, resize):
    sources = source_masks(label_scenes)
    augment = segfeed.Augment(rotation_fraction=0.0, contrast=None, brightness=None, saturation=None,
                              hue=None, resize=resize, scale_range=(2.5, 4.0))
    with segfeed.Loader(label_scenes, batch_size=16, size=(48, 48), seed=3, augment=augment,
                        mask_mode="labels", num_classes=5, mask_dtype="uint8") as loader:
        for batch in loader:
            with batch:
                masks = np.asarray(batch.masks)
                for k, (sample, params) in enumerate(zip(batch.sample_ids, batch.params)):
                    back = segfeed.unwarp(masks[k, :, :, 0], params, fill=254)
                    assert back.shape == SOURCE
                    covered = back != 254
                    assert covered.mean() > 0.02, params  # a crop of a zoomed-in photo
                    agree = (back == sources[sample])[covered].mean()
                    assert agree > 0.99, (resize, agree, params)


def test_the_matrix_goes_to_opencv_and_floats_are_bilinear(label_scenes):
    augment = segfeed.Augment(resize="keep_ratio", rotation_fraction=0.1)
    with segfeed.Loader(label_scenes, batch_size=2, size=(40, 40), augment=augment) as loader:
        batch = next(iter(loader))
        with batch:
            params = batch.params[0]
            m = segfeed.unwarp_matrix(params)
            back = np.asarray(params["output_to_source"] and [
                [params["output_to_source"][k] for k in ("xx", "xy", "x0")],
                [params["output_to_source"][k] for k in ("yx", "yy", "y0")]])
            # The two matrices are each other's inverse.
            full = np.vstack([m, [0, 0, 1]]) @ np.vstack([back, [0, 0, 1]])
            assert np.allclose(full, np.eye(3), atol=1e-9)
            scores = np.linspace(0, 1, 40 * 40 * 3, dtype=np.float32).reshape(40, 40, 3)
            up = segfeed.unwarp(scores, params, source_size=(32, 48))
            assert up.shape == (32, 48, 3) and up.dtype == np.float32
            assert 0 <= up.min() and up.max() <= 1
    with pytest.raises(ValueError, match="H x W"):
        segfeed.unwarp(np.zeros(4), params)


def test_the_mmseg_recipe_is_the_same_stream_on_one_and_two_threads(label_scenes):
    augment = segfeed.Augment(resize="keep_ratio", scale_range=(0.5, 2.0), crop_max_class_ratio=0.75,
                              rotation_fraction=0.0)
    digests = set()
    for threads in (1, 2):
        with segfeed.Loader(label_scenes, batch_size=4, size=(40, 40), seed=9, threads=threads, augment=augment,
                            mask_mode="labels", num_classes=5) as loader:
            seen = []
            for batch in loader:
                with batch:
                    seen.append(np.asarray(batch.images).tobytes() + np.asarray(batch.masks).tobytes())
                    seen.append(repr([(p["scale_factor"], p["crop_x"], p["crop_y"]) for p in batch.params]))
            digests.add(hash(tuple(seen)))
    assert len(digests) == 1
    validation = segfeed.Loader(label_scenes, batch_size=4, size=(40, 40), subset="validation",
                                validation_fraction=0.5, mask_mode="labels", num_classes=5)
    with validation, next(iter(validation)) as batch:
        assert all((p["scale_factor"], p["crop_x"], p["crop_y"]) == (1.0, 0.5, 0.5) for p in batch.params)
