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


@pytest.mark.parametrize("fill_mode", ["constant", "reflect"])
@pytest.mark.parametrize("rotation_fraction", [0.0, 0.05])
@pytest.mark.parametrize("mask_mode", ["binary", "labels"])
def test_padding_is_the_fill_whatever_the_fill_mode(request, fill_mode, rotation_fraction, mask_mode):
    # keep_ratio's letterbox (rows 0-10 and 53-63 of 96x64 photos fitted into
    # 64x64) is fill_value and 0 or the ignore value under reflect too: the
    # mode decides only what a rotation brings in past the photo's left and
    # right edges. Turned by up to 18 degrees, the middle columns' first and
    # last 3 rows still lie in the padding.
    data = request.getfixturevalue("label_scenes" if mask_mode == "labels" else "demo")
    labels = dict(mask_mode="labels", num_classes=5) if mask_mode == "labels" else {}
    augment = dataclasses.replace(segfeed.Augment.none(), resize="keep_ratio", fill_value=(124, 116, 104),
                                  fill_mode=fill_mode, rotation_fraction=rotation_fraction)
    with segfeed.Loader(data, batch_size=8, size=64, image_dtype="uint8", layout="nhwc", augment=augment,
                        shuffle=False, **labels) as loader:
        with next(iter(loader)) as batch:
            images, masks = np.asarray(batch.images), np.asarray(batch.masks).reshape(8, 64, 64)
            mask_fill = 255 if mask_mode == "labels" else 0
            for rows in (slice(0, 3), slice(61, 64)):
                assert (images[:, rows, 24:40] == (124, 116, 104)).all()
                assert (masks[:, rows, 24:40] == mask_fill).all()
            if rotation_fraction == 0:
                for rows in (slice(0, 10), slice(54, 64)):
                    assert (images[:, rows] == (124, 116, 104)).all()
                    assert (masks[:, rows] == mask_fill).all()
            assert (masks[:, 20:44] != mask_fill).any()


def test_reflect_is_refused_where_nothing_is_left_to_mirror(demo):
    augment = segfeed.Augment(resize="keep_ratio", scale_range=(0.5, 0.8), fill_mode="reflect")
    with pytest.raises(segfeed.ConfigError, match=r"fill_mode must be constant with resize keep_ratio and "
                                                  r"scale_range below 1 \(got reflect, scale_range max 0.8\)"):
        segfeed.Loader(demo, size=64, augment=augment)


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
