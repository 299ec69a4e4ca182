"""segfeed.keras.Dataset driven by a real keras Model.fit."""

from __future__ import annotations

import random

import keras
import pytest

import segfeed
import segfeed.keras
from streams import digest as _digest
from streams import loader_stream


def _loader(root, **options):
    defaults = dict(batch_size=4, size=32, seed=7, threads=2)
    defaults.update(options)
    return segfeed.Loader(root, **defaults)


def _stream(root, epochs, **options):
    """Per batch of `epochs` loader epochs: (image digest, mask digest, sample ids)."""
    return loader_stream(_loader(root, **options), epochs)


class RecordingModel(keras.Model):
    """A small fully convolutional net that records the batches it trains on."""

    def __init__(self):
        inputs = keras.Input((32, 32, 3))
        x = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
        outputs = keras.layers.Conv2D(1, 1, activation="sigmoid")(x)
        super().__init__(inputs, outputs)
        self.seen = []

    def train_step(self, data):
        images, masks = data
        self.seen.append((_digest(images.numpy()), _digest(masks.numpy())))
        return super().train_step(data)


def _model():
    keras.utils.set_random_seed(0)
    model = RecordingModel()
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="binary_crossentropy", run_eagerly=True)
    return model


def test_fit_trains_on_the_loader_stream_in_order(demo16):
    model = _model()
    with _loader(demo16) as loader:
        data = segfeed.keras.Dataset(loader, record=True)
        history = model.fit(data, epochs=3, shuffle=False, verbose=0)
        assert loader.stats()["outstanding_leases"] == 0
    expected = _stream(demo16, 3)
    assert model.seen == [(image, mask) for image, mask, _ in expected]
    # Before training Keras took batches 0 and 1 to infer the signature; then epochs 0, 1, 2 in order.
    trained = data.served[-len(expected):]
    assert [ids for _, _, ids in trained] == [ids for _, _, ids in expected]
    assert [(epoch, index) for epoch, index, _ in trained] == [(e, i) for e in range(3) for i in range(4)]
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_validation_data_is_the_validation_subset_every_epoch(demo16):
    model = _model()
    with _loader(demo16, subset="train", validation_fraction=0.25) as train, \
            _loader(demo16, subset="validation", validation_fraction=0.25) as validation:
        train_data = segfeed.keras.Dataset(train, record=True)
        validation_data = segfeed.keras.Dataset(validation, record=True)
        history = model.fit(train_data, validation_data=validation_data, epochs=2, shuffle=False, verbose=0)
    assert len(history.history["val_loss"]) == 2
    trained = {i for _, _, ids in train_data.served for i in ids}
    by_epoch = {}
    for epoch, _, ids in validation_data.served:
        by_epoch.setdefault(epoch, set()).update(ids)
    assert len(trained) == 12 and len(by_epoch[0]) == 4
    assert all(ids == by_epoch[0] for ids in by_epoch.values()), "the same pairs validate every epoch"
    assert not trained & by_epoch[0]


def test_validation_data_over_the_training_loader_is_refused(demo16):
    model = _model()
    with _loader(demo16) as loader:
        with pytest.raises(segfeed.Error, match=r"two segfeed.keras.Dataset objects serve one loader .* "
                                                r"subset='validation'"):
            model.fit(segfeed.keras.Dataset(loader), validation_data=segfeed.keras.Dataset(loader), epochs=1,
                      shuffle=False, verbose=0)


def test_fresh_datasets_for_a_second_fit_are_fine(demo16):
    # Keras keeps the first fit's validation Dataset alive on the model; it no longer serves.
    model = _model()
    with _loader(demo16, subset="train", validation_fraction=0.25) as train, \
            _loader(demo16, subset="validation", validation_fraction=0.25) as validation:
        for _ in range(2):
            segfeed.keras.Dataset(train)  # made and dropped, as a notebook cell run twice does
            model.fit(segfeed.keras.Dataset(train), validation_data=segfeed.keras.Dataset(validation), epochs=1,
                      shuffle=False, verbose=0)
    assert len(model.seen) == 2 * 3


def test_fit_with_shuffle_says_to_pass_shuffle_false(demo16):
    random.seed(1)  # Keras shuffles a PyDataset's batch indices with `random`
    model = _model()
    with _loader(demo16, batch_size=2) as loader:
        with pytest.raises(Exception, match=r"Pass shuffle=False to model.fit\(\)"):
            model.fit(segfeed.keras.Dataset(loader), epochs=1, shuffle=True, verbose=0)


def test_keras_workers_are_refused(demo16):
    with _loader(demo16) as loader:
        with pytest.raises(segfeed.Error, match="own threads"):
            segfeed.keras.Dataset(loader, workers=4)
        with pytest.raises(segfeed.Error, match="channels_last"):
            segfeed.keras.Dataset(_loader(demo16, layout="nchw"))


def test_batches_out_of_order_are_refused_and_zero_restarts(demo16):
    with _loader(demo16) as loader:
        data = segfeed.keras.Dataset(loader)
        first = data[0]
        assert _digest(data[1][0]) == _stream(demo16, 1)[1][0]
        with pytest.raises(segfeed.Error, match="asked for batch 3 of epoch 0, expected batch 2 or 0"):
            data[3]
        assert _digest(data[0][0]) == _digest(first[0])  # batch 0 restarts the epoch
        assert loader.stats()["outstanding_leases"] == 0


def test_batches_are_64_byte_aligned_copies_of_the_stream(demo16):
    # Aligned, TensorFlow wraps the arrays; NumPy's 16-byte alignment makes it copy each batch again.
    expected = _stream(demo16, 1, size=(64, 48))
    with _loader(demo16, size=(64, 48)) as loader:
        data = segfeed.keras.Dataset(loader)
        for index, (image, mask, _) in enumerate(expected):
            images, masks = data[index]
            assert images.ctypes.data % 64 == 0 and masks.ctypes.data % 64 == 0
            assert (_digest(images), _digest(masks)) == (image, mask)
        assert loader.stats()["outstanding_leases"] == 0


def test_a_second_fit_and_each_evaluate_continue_the_loaders_epochs(demo16):
    # 2 batches an epoch: the two Keras takes for the signature are a whole epoch, which must not count.
    model = _model()
    with _loader(demo16, batch_size=8) as loader:
        data = segfeed.keras.Dataset(loader)
        model.fit(data, epochs=2, shuffle=False, verbose=0)
        model.fit(data, epochs=4, initial_epoch=2, shuffle=False, verbose=0)
    assert model.seen == [(image, mask) for image, mask, _ in _stream(demo16, 4, batch_size=8)]
    with _loader(demo16, batch_size=16, subset="validation", validation_fraction=0.25) as validation:
        data = segfeed.keras.Dataset(validation, record=True)
        model.evaluate(data, verbose=0)
        model.evaluate(data, verbose=0)
    assert [epoch for epoch, _, _ in data.served] == [0, 0, 1, 1]  # signature, evaluation; twice
