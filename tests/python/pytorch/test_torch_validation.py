"""The validation subset: one call, disjoint from training, the same every epoch, no augmentation."""

import pytest
import segfeed

torch = pytest.importorskip("torch")
import segfeed.torch  # noqa: E402  (needs torch)

# The drawn parameters of no augmentation (the applied geometry beside them depends on the photo).
IDENTITY = {"flip_lr": False, "flip_ud": False, "angle_deg": 0.0, "scale_factor": 1.0, "crop_x": 0.5,
            "crop_y": 0.5, "contrast_factor": 1.0, "brightness_delta": 0.0, "saturation_factor": 1.0,
            "hue_delta": 0.0}
OPTIONS = dict(batch_size=2, size=(32, 48), threads=2, seed=7, validation_fraction=0.3)


def epochs(loader, count):
    """Per epoch: the sample ids in order, every sample's params and the pixels (copied)."""
    out = []
    for epoch in range(count):
        ids, params, images = [], [], []
        for x, _, info in segfeed.torch.batches(loader, epoch, info=True):
            ids += info["sample_ids"]
            params += [{key: p[key] for key in IDENTITY} for p in info["params"]]
            images.append(x.clone())
        out.append((ids, params, torch.cat(images)))
    return out


def test_validation_is_disjoint_from_training_and_the_same_every_epoch_without_augmentation(demo):
    with segfeed.Loader(demo, subset="train", **OPTIONS) as train, \
            segfeed.Loader(demo, subset="validation", shuffle=False, **OPTIONS) as validation:
        train_epochs, validation_epochs = epochs(train, 3), epochs(validation, 3)
    validation_ids = validation_epochs[0][0]
    assert len(validation_ids) == 3 == len(set(validation_ids))
    for ids, params, images in validation_epochs:
        assert ids == validation_ids
        assert params == [IDENTITY] * 3
        assert torch.equal(images, validation_epochs[0][2])  # the same pixels every epoch
    for ids, params, _ in train_epochs:
        assert sorted(ids) == sorted(train_epochs[0][0]) and len(ids) == 7
        assert not set(ids) & set(validation_ids)
        assert sorted(set(ids) | set(validation_ids)) == list(range(10))
        assert any(p != IDENTITY for p in params)  # training is augmented
    assert train_epochs[0][0] != train_epochs[1][0]  # and reshuffled


def test_a_shuffled_validation_subset_has_the_same_samples_each_epoch(demo):
    with segfeed.Loader(demo, subset="val", **OPTIONS) as validation:
        per_epoch = epochs(validation, 3)
    assert len({tuple(sorted(ids)) for ids, _, _ in per_epoch}) == 1
    assert all(params == [IDENTITY] * 3 for _, params, _ in per_epoch)


def test_another_seed_splits_otherwise(demo):
    def validation_ids(seed):
        with segfeed.Loader(demo, subset="validation", **{**OPTIONS, "seed": seed}) as loader:
            return sorted(i for _, _, info in segfeed.torch.batches(loader, 0, info=True) for i in info["sample_ids"])

    assert validation_ids(7) == validation_ids(7)
    assert any(validation_ids(seed) != validation_ids(7) for seed in (8, 9, 10))


def test_a_validation_subset_is_augmented_when_asked(demo):
    with segfeed.Loader(demo, subset="validation", augment=segfeed.Augment(flip_lr_probability=1.0),
                        **OPTIONS) as validation:
        (_, params, _), = epochs(validation, 1)
    assert all(p["flip_lr"] for p in params)
