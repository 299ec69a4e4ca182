"""segfeed.tf.dataset: signature, cardinality, epochs, pools under prefetch."""

from __future__ import annotations

import warnings

import keras
import pytest
import tensorflow as tf

import segfeed
import segfeed.tf
from streams import digest as _digest
from streams import loader_stream


def _loader(root, **options):
    defaults = dict(batch_size=4, size=(24, 40), seed=5, threads=2)
    defaults.update(options)
    return segfeed.Loader(root, **defaults)


def _stream(root, epochs, **options):
    return [(image, mask) for image, mask, _ in loader_stream(_loader(root, **options), epochs)]


def _passes(dataset, count):
    return [(_digest(images.numpy()), _digest(masks.numpy())) for _ in range(count) for images, masks in dataset]


@pytest.mark.parametrize("layout", ["nhwc", "nchw"])
def test_signature_and_cardinality_are_exact(demo16, layout):
    with _loader(demo16, layout=layout, image_dtype="uint8", mask_dtype="uint8") as loader:
        dataset = segfeed.tf.dataset(loader)
        images = (4, 24, 40, 3) if layout == "nhwc" else (4, 3, 24, 40)
        assert dataset.element_spec == (tf.TensorSpec(images, tf.uint8, name="images"),
                                        tf.TensorSpec((4, 24, 40, 1), tf.uint8, name="masks"))
        assert int(dataset.cardinality()) == 4
        assert int(segfeed.tf.dataset(loader, epochs=3).cardinality()) == 12
    with _loader(demo16, batch_size=5) as loader:  # 16 = 5 + 5 + 5 + 1
        images_spec, masks_spec = segfeed.tf.dataset(loader).element_spec
        assert images_spec.shape.as_list() == [None, 24, 40, 3] and images_spec.dtype == tf.float32
        assert [int(images.shape[0]) for images, _ in segfeed.tf.dataset(loader)] == [5, 5, 5, 1]
    with _loader(demo16, batch_size=5, drop_last=True) as loader:
        assert segfeed.tf.dataset(loader).element_spec[0].shape.as_list() == [5, 24, 40, 3]


def test_two_passes_are_two_loader_epochs_with_a_pool_of_two_under_autotune(demo16):
    with _loader(demo16, prefetch_batches=2) as loader:
        dataset = segfeed.tf.dataset(loader).prefetch(tf.data.AUTOTUNE)
        assert _passes(dataset, 2) == _stream(demo16, 2)
        assert loader.stats()["outstanding_leases"] == 0
    with _loader(demo16, prefetch_batches=2) as loader:
        assert _passes(segfeed.tf.dataset(loader, epochs=2).prefetch(tf.data.AUTOTUNE), 1) == _stream(demo16, 2)


def test_zero_copy_needs_a_pool_large_enough(demo16):
    with _loader(demo16, prefetch_batches=2) as loader:
        with pytest.raises(segfeed.ConfigError, match=r"prefetch_batches >= 8"):
            segfeed.tf.dataset(loader, copy=False)
    with _loader(demo16, prefetch_batches=segfeed.tf.ZERO_COPY_MIN_BUFFERS) as loader:
        dataset = segfeed.tf.dataset(loader, copy=False).prefetch(tf.data.AUTOTUNE)
        assert _passes(dataset, 3) == _stream(demo16, 3)
    with _loader(demo16, prefetch_batches=segfeed.tf.ZERO_COPY_MIN_BUFFERS) as loader:
        images, masks = next(iter(segfeed.tf.dataset(loader, copy=False)))
        assert loader.stats()["outstanding_leases"] >= 1, "TensorFlow's tensors are the pool memory"


def test_keras_fit_on_the_dataset_does_not_run_out_of_data(demo16):
    keras.utils.set_random_seed(0)
    inputs = keras.Input((24, 40, 3))
    outputs = keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid")(inputs)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="binary_crossentropy")
    with _loader(demo16) as loader, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(segfeed.tf.dataset(loader).prefetch(tf.data.AUTOTUNE), epochs=3, verbose=0)
        assert loader.stats()["batches_delivered"] >= 12
    assert not [w for w in caught if "ran out of data" in str(w.message)]
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_bad_arguments(demo16):
    with _loader(demo16) as loader:
        with pytest.raises(segfeed.ConfigError, match="epochs must be None or an int >= 1"):
            segfeed.tf.dataset(loader, epochs=0)
        with pytest.raises(TypeError, match="segfeed.Loader"):
            segfeed.tf.dataset(object())


def test_a_pass_is_whole_epochs_so_a_loader_resumed_mid_epoch_is_refused(demo16):
    with _loader(demo16) as loader:
        state = loader.state_dict()
        loader.load_state_dict({**state, "next_batch": 2})
        with pytest.raises(segfeed.ConfigError, match=r"continues epoch 0 at batch 2 .*`for batch in loader` first"):
            segfeed.tf.dataset(loader)


def test_the_copy_holds_no_buffer_between_elements(demo16):
    # tf.data injects a prefetch by default, whose thread may be copying the
    # next batch (holding its lease) at the moment stats() is read: without
    # it, the generator runs only when next() asks.
    no_prefetch = tf.data.Options()
    no_prefetch.experimental_optimization.inject_prefetch = False
    with _loader(demo16) as loader:
        it = iter(segfeed.tf.dataset(loader).with_options(no_prefetch))
        next(it)
        assert loader.stats()["outstanding_leases"] == 0
