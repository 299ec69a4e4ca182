"""A validation loader is one call: Loader(data, subset="validation")."""

from __future__ import annotations

import segfeed

IDENTITY = {"flip_lr": False, "flip_ud": False, "angle_deg": 0.0, "contrast_factor": 1.0, "brightness_delta": 0.0,
            "saturation_factor": 1.0, "hue_delta": 0.0}


def _ids_and_params(loader, epochs):
    ids, params = [], []
    for epoch in range(epochs):
        epoch_ids = []
        for batch in loader.epoch(epoch):
            with batch:
                epoch_ids += batch.sample_ids
                params += batch.params
        ids.append(epoch_ids)
    return ids, params


def test_validation_subset_is_fixed_disjoint_and_not_augmented(demo):
    common = dict(batch_size=2, size=32, seed=11, validation_fraction=0.3, threads=2)
    with segfeed.Loader(demo, subset="validation", **common) as validation, \
            segfeed.Loader(demo, subset="train", **common) as train:
        validation_ids, validation_params = _ids_and_params(validation, 3)
        train_ids, train_params = _ids_and_params(train, 3)
    assert len(set(validation_ids[0])) == 3 and len(set(train_ids[0])) == 7
    assert all(set(ids) == set(validation_ids[0]) for ids in validation_ids), "the same pairs every epoch"
    assert not set(validation_ids[0]) & set(train_ids[0])
    assert set(validation_ids[0]) | set(train_ids[0]) == set(range(10))
    assert all({key: p[key] for key in IDENTITY} == IDENTITY for p in validation_params)
    assert any({key: p[key] for key in IDENTITY} != IDENTITY for p in train_params), "training is augmented"


def test_validation_takes_augmentation_when_asked(demo):
    with segfeed.Loader(demo, subset="validation", batch_size=2, size=32, seed=11, validation_fraction=0.3,
                        augment=segfeed.Augment(flip_lr_probability=1.0)) as validation:
        _, params = _ids_and_params(validation, 1)
    assert all(p["flip_lr"] for p in params)
