"""The geometry options from Python: per-channel padding, the mmsegmentation-like
recipe and its validation side."""

import dataclasses

import numpy as np
import pytest

import segfeed


def test_padding_takes_the_fill_colour_per_channel_and_the_ignore_value(label_scenes):
    # 96x64 scenes fitted into 64x64: rows 0-10 and 53-63 are padding.
    augment = dataclasses.replace(segfeed.Augment.none(), resize="keep_ratio", fill_value=(124, 116, 104))
    with segfeed.Loader(label_scenes, batch_size=4, size=64, image_dtype="uint8", layout="nhwc", augment=augment,
                        mask_mode="labels", num_classes=5, shuffle=False) as loader:
        with next(iter(loader)) as batch:
            images, masks = np.asarray(batch.images), np.asarray(batch.masks)
            for rows in (slice(0, 10), slice(54, 64)):
                assert (images[:, rows] == (124, 116, 104)).all()
                assert (masks[:, rows] == 255).all()  # the ignore value
            assert not (images[:, 20:44] == (124, 116, 104)).all(axis=-1).all()
            assert (masks[:, 20:44] != 255).any()


def test_fill_value_is_one_level_or_three(demo):
    with segfeed.Loader(demo, size=8, augment=segfeed.Augment(fill_value=7)) as loader:
        assert loader.options["fill_value"] == 7
    with segfeed.Loader(demo, size=8, augment=segfeed.Augment(fill_value=[1, 2, 3])) as loader:
        assert loader.options["fill_value"] == (1, 2, 3)
    with pytest.raises(segfeed.ConfigError, match=r"fill_value\[2\] must be in \[0, 255\] \(got 300\)"):
        segfeed.Loader(demo, size=8, augment=segfeed.Augment(fill_value=(1, 2, 300)))
    with pytest.raises(TypeError, match="fill_value must be an integer, or 3 integers"):
        segfeed.Loader(demo, size=8, augment=segfeed.Augment(fill_value=(1, 2)))


def test_the_mmseg_like_recipe_and_its_validation_side():
    recipe = segfeed.Augment.mmseg_like()
    assert (recipe.resize, recipe.scale_range, recipe.crop, recipe.crop_max_class_ratio) == \
        ("keep_ratio", (0.5, 2.0), "random", 0.75)
    assert (recipe.rotation_fraction, recipe.flip_ud_probability, recipe.flip_lr_probability) == (0.0, 0.0, 0.5)
    validation = dataclasses.replace(recipe, fill_value=9).for_validation()
    assert validation == dataclasses.replace(segfeed.Augment.none(), resize="keep_ratio", fill_value=9)
    assert segfeed.Augment().for_validation() == segfeed.Augment.none()
