"""tf.data input: a segfeed.Loader as a ``tf.data.Dataset``.

::

    import segfeed, segfeed.tf, tensorflow as tf

    loader = segfeed.Loader("data", subset="train", batch_size=16, size=512, seed=0)
    train = segfeed.tf.dataset(loader).prefetch(tf.data.AUTOTUNE)
    model.fit(train, epochs=10)        # each pass over `train` is the next loader epoch

The dataset yields ``(images, masks)`` batches with an exact
``output_signature`` and knows its cardinality, so Keras sees the end of an
epoch coming instead of warning that the input ran out of data. Do not
``.batch()``, ``.shuffle()`` or ``.cache()`` it: segfeed batches and
shuffles, reproducibly, and caching would hold every batch in memory.

Importing this module imports TensorFlow.
"""

from __future__ import annotations

from typing import Iterator, Optional, Tuple

import numpy as np
import tensorflow as tf

from ._errors import ConfigError
from ._loader import Loader

__all__ = ["dataset", "ZERO_COPY_MIN_BUFFERS"]

# TensorFlow keeps up to 6 yielded batches alive even without prefetch()
# (measured with TensorFlow 2.21); a zero-copy batch holds its pool buffer as
# long as TensorFlow holds the array, and the loader needs one more buffer to
# fill while those are held, and one to hand out.
ZERO_COPY_MIN_BUFFERS = 8

_DTYPES = {"float32": tf.float32, "float16": tf.float16, "uint8": tf.uint8, "int32": tf.int32,
           "int64": tf.int64}


def dataset(loader: Loader, epochs: Optional[int] = None, *, copy: bool = True) -> tf.data.Dataset:
    """The loader's batches as a ``tf.data.Dataset`` of ``(images, masks)``.

    Args:
        loader: the segfeed.Loader; the dataset starts its epochs, so do not
            iterate the loader elsewhere meanwhile.
        epochs: None: every pass over the dataset (every Keras epoch, every
            ``for`` loop, every ``repeat()``) is the loader's next epoch, and
            the cardinality is one epoch's batches. A number: one pass runs
            that many loader epochs in a row.
        copy: True (the default) copies each batch into memory TensorFlow
            owns and gives the pool buffer back at once, so any ``prefetch``
            is safe with a pool of 2. False hands TensorFlow the pool memory
            itself (no copy): a buffer is busy until TensorFlow drops the
            tensor, and TensorFlow holds an unpredictable number of them, so
            this needs ``prefetch_batches >= ZERO_COPY_MIN_BUFFERS`` (and
            more with a deep ``prefetch``); when TensorFlow holds every
            buffer the iterator raises segfeed.PoolExhaustedError rather
            than wait forever.

    Raises:
        ConfigError: ``copy=False`` with a pool too small, a bad ``epochs``,
            or a loader that would continue an epoch part way (resume
            tf.data at epoch boundaries). Errors while TensorFlow iterates
            (a bad file under ``on_bad_file="fail"``) reach the caller
            wrapped by TensorFlow, the segfeed message inside.
    """
    if not isinstance(loader, Loader):
        raise TypeError(f"loader must be a segfeed.Loader (got {type(loader).__name__})")
    if epochs is not None and (isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1):
        raise ConfigError(f"epochs must be None or an int >= 1 (got {epochs!r})")
    options = loader.options
    if not copy and options["prefetch_batches"] < ZERO_COPY_MIN_BUFFERS:
        raise ConfigError(f"segfeed.tf.dataset(copy=False) needs Loader(prefetch_batches >= {ZERO_COPY_MIN_BUFFERS}) "
                          f"(got {options['prefetch_batches']}): TensorFlow keeps several yielded batches alive, "
                          f"and each holds a pool buffer")

    def batches() -> Iterator[Tuple[np.ndarray, np.ndarray]]:
        for _ in range(1 if epochs is None else epochs):
            _check_at_epoch_start(loader)
            for batch in loader:  # the loader's next epoch
                with batch:  # the copy holds nothing; the zero-copy arrays hold the buffer
                    pair = ((np.array(batch.images), np.array(batch.masks)) if copy else
                            (np.asarray(batch.images), np.asarray(batch.masks)))
                yield pair

    _check_at_epoch_start(loader)
    data = tf.data.Dataset.from_generator(batches, output_signature=signature(loader))
    return data.apply(tf.data.experimental.assert_cardinality(loader.batches_per_epoch * (epochs or 1)))


def _check_at_epoch_start(loader: Loader) -> None:
    """A pass is whole epochs (its cardinality says so): refuse a loader that
    would continue an epoch part way, as after load_state_dict mid-epoch."""
    epoch, next_batch, shard_start = loader._core.position()  # what state_dict() says, without the digests
    if next_batch != 0 or shard_start != 0:
        where = f"at batch {next_batch}" + (f" of the rest after sample {shard_start}, re-sharded" if shard_start else "")
        raise ConfigError(f"segfeed.tf.dataset runs whole epochs, but the loader continues epoch {epoch} {where} (a "
                          f"load_state_dict() mid-epoch, or an epoch under way): finish that epoch with "
                          f"`for batch in loader` first, or resume tf.data at an epoch boundary")


def signature(loader: Loader) -> Tuple[tf.TensorSpec, tf.TensorSpec]:
    """The ``(images, masks)`` TensorSpecs of the loader's batches; the batch
    dimension is None when the last batch of an epoch is short."""
    options = loader.options
    batch_size = options["batch_size"]
    exact = options["drop_last"] or loader.samples_per_epoch % batch_size == 0
    n = batch_size if exact else None
    height, width = options["output_height"], options["output_width"]
    image_shape = (n, height, width, 3) if options["layout"] == "nhwc" else (n, 3, height, width)
    return (tf.TensorSpec(image_shape, _DTYPES[options["image_dtype"]], name="images"),
            tf.TensorSpec((n, height, width, 1), _DTYPES[options["mask_dtype"]], name="masks"))
