"""Multi-class label maps into Keras: SparseCategoricalCrossentropy(ignore_class=255) trains on the
batches as they come (int32 labels, 255 on boundaries and rotated-in corners)."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import segfeed
import segfeed.keras

CLASSES = 5  # conftest's label_scenes


def test_sparse_categorical_crossentropy_with_ignore_class_trains(label_scenes):
    keras.utils.set_random_seed(0)
    inputs = keras.Input((32, 32, 3))
    x = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(inputs)
    x = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(x)
    outputs = keras.layers.Conv2D(CLASSES, 1)(x)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=255))
    with segfeed.Loader(label_scenes, batch_size=4, size=32, seed=4, threads=2, mask_mode="labels",
                        num_classes=CLASSES, mask_dtype="int32") as loader:
        first = next(iter(loader.epoch(0)))
        labels = np.asarray(first.masks)
        assert labels.dtype == np.int32 and set(np.unique(labels)) <= set(range(CLASSES)) | {255}
        del first, labels
        history = model.fit(segfeed.keras.Dataset(loader), epochs=6, shuffle=False, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.8 * losses[0], losses
