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

For ``tf.distribute`` (MirroredStrategy, MultiWorkerMirroredStrategy), one
loader per input pipeline, each its own shard (``distributed_dataset_fn``)::

    strategy = tf.distribute.MirroredStrategy()
    mode = tf.distribute.InputReplicationMode.PER_REPLICA   # a loader per replica
    per_replica = tf.distribute.InputOptions(experimental_replication_mode=mode)
    with segfeed.tf.distributed_dataset_fn(64, "data", size=512, seed=0) as dataset_fn:
        train = strategy.distribute_datasets_from_function(dataset_fn, per_replica)
        model.fit(train, epochs=10, shuffle=False)     # model built and compiled under strategy.scope()

Importing this module imports TensorFlow.
"""

from __future__ import annotations

from typing import Any, Iterator, List, Optional, Tuple

import numpy as np
import tensorflow as tf

from ._aligned import aligned_copy
from ._errors import ConfigError
from ._loader import Loader, PathLike

__all__ = ["dataset", "distributed_dataset_fn", "DistributedDatasetFn", "ZERO_COPY_MIN_BUFFERS"]

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
                    # Aligned, so that TensorFlow wraps the copy instead of copying it again.
                    pair = ((aligned_copy(batch.images), aligned_copy(batch.masks)) if copy else
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


def distributed_dataset_fn(global_batch_size: int, data: Optional[PathLike] = None, *, epochs: Optional[int] = None,
                           copy: bool = True, **loader_options: Any) -> "DistributedDatasetFn":
    """A ``dataset_fn`` for ``strategy.distribute_datasets_from_function``: one segfeed.Loader per input pipeline.

    ::

        strategy = tf.distribute.MultiWorkerMirroredStrategy()    # TF_CONFIG names the workers
        with segfeed.tf.distributed_dataset_fn(64, "data", size=512, seed=0) as dataset_fn:
            train = strategy.distribute_datasets_from_function(dataset_fn)
            for images, masks in train:                           # an epoch: every loader's next one
                strategy.run(step, args=(images, masks))

    Each call (TensorFlow makes one per input pipeline: by default one per
    worker process; with ``InputReplicationMode.PER_REPLICA``, one per
    replica) builds its own Loader, sharded ``rank=input_pipeline_id``,
    ``world_size=num_input_pipelines``, as PyTorch's DistributedSampler
    shards: every shard has the same number of samples (a dataset that the
    shards do not divide pads with samples from the start of the order), so
    every pipeline has the same number of batches and each step finds data
    everywhere, a short last batch included. Its batch is the pipeline's
    part of ``global_batch_size``: the per-replica batch
    (``input_context.get_per_replica_batch_size``) when the pipeline feeds
    one replica: MultiWorkerMirroredStrategy with one device per worker, or
    MirroredStrategy with ``PER_REPLICA``, which is the way to use it with
    Keras (see below). A pipeline that feeds ``k`` replicas (MirroredStrategy
    over ``k`` devices by default) makes batches of ``k`` x per-replica
    samples and splits each into ``k`` per-replica batches, which TensorFlow
    hands to the ``k`` replicas of one step: so an epoch is whole steps
    (with ``k`` per-replica batches of its own, TensorFlow 2.21 silently
    drops a last one that has no partner, or, when the batch size is not
    static, gives the other replicas empty batches on which Keras' training
    step fails), and a short last batch is shared out evenly.

    Each pass over the distributed dataset is every loader's next epoch, in
    step. Measured with Keras 3.15 (TensorFlow 2.21): ``model.fit`` under a
    strategy starts one pass before its first epoch to build the model and
    takes one step's batches from it, so fit's epochs are loader epochs 1,
    2, ... (epoch 0 is loaded, and unused); with a pipeline of ``k > 1``
    replicas it also counts the pipeline's batches as steps and warns "Your
    input ran out of data" at the end of every epoch, after training every
    step (``PER_REPLICA`` avoids it). Under MultiWorkerMirroredStrategy,
    Keras 3's ``model.fit`` fails before its first step (keras-team/keras
    issue 20585, whatever the input); train in a custom loop
    (``strategy.run``), as ``samples/python/keras_distributed.py`` does.

    Args:
        global_batch_size: samples per step over all replicas; a multiple
            of ``strategy.num_replicas_in_sync``.
        data: the dataset, as ``segfeed.Loader(data, ...)`` takes it.
        epochs: as ``segfeed.tf.dataset``: None, each pass is one loader
            epoch; a number, each pass runs that many.
        copy: as ``segfeed.tf.dataset`` (False needs
            ``prefetch_batches >= ZERO_COPY_MIN_BUFFERS``).
        **loader_options: every other ``segfeed.Loader`` keyword (``size``,
            ``seed``, ``subset``, ``drop_last``, ``augment``, ...), the same
            on every worker: the seed must be, for the shards to be disjoint.
            Not ``batch_size``, ``rank`` or ``world_size``: those come from
            the input context.

    Returns:
        A DistributedDatasetFn: call it with a ``tf.distribute.InputContext``.

    Lifetime: the loaders exist from the strategy's call until ``close()``
    (the end of the ``with`` block, or the interpreter's exit hook); they
    are in ``.loaders``, in the order made. Keep them open while TensorFlow
    iterates: closing one ends its epoch, and TensorFlow raises. Every
    ``distribute_datasets_from_function`` call makes new loaders (a second
    call, for validation, holds a second set of pools); one object can
    serve several calls and ``close()`` closes them all.

    Raises:
        ConfigError: here, ``batch_size``, ``rank`` or ``world_size`` given,
            a ``global_batch_size`` that is no int >= 1, a bad ``epochs``;
            at the strategy's call, a ``global_batch_size`` that the replicas
            do not divide, a short last batch that cannot be shared out
            evenly among the replicas of one worker, and whatever
            ``segfeed.Loader`` and ``segfeed.tf.dataset`` refuse (the loader
            made is closed again).
    """
    return DistributedDatasetFn(global_batch_size, data, epochs=epochs, copy=copy, **loader_options)


class DistributedDatasetFn:
    """The callable ``distributed_dataset_fn`` returns: ``dataset_fn(input_context) -> tf.data.Dataset``.

    Attributes:
        global_batch_size: samples per step over all replicas.
        loaders: the segfeed.Loaders made so far, one per call, in order.
    """

    # Set by TensorFlow's input context, never by the caller: a value given
    # would disagree with the shard or the batch the strategy feeds.
    _CONTEXT_OPTIONS = {
        "batch_size": "it is global_batch_size divided among the replicas",
        "rank": "it is the input context's input_pipeline_id",
        "world_size": "it is the input context's num_input_pipelines",
    }

    def __init__(self, global_batch_size: int, data: Optional[PathLike] = None, *, epochs: Optional[int] = None,
                 copy: bool = True, **loader_options: Any) -> None:
        if isinstance(global_batch_size, bool) or not isinstance(global_batch_size, int) or global_batch_size < 1:
            raise ConfigError(f"global_batch_size must be an int >= 1 (got {global_batch_size!r})")
        for name, reason in self._CONTEXT_OPTIONS.items():
            if name in loader_options:
                raise ConfigError(f"segfeed.tf.distributed_dataset_fn sets {name} itself ({reason}; got "
                                  f"{name}={loader_options[name]!r}): leave it out"
                                  + (", and pass the batch of one step over all replicas as global_batch_size"
                                     if name == "batch_size" else ""))
        if epochs is not None and (isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1):
            raise ConfigError(f"epochs must be None or an int >= 1 (got {epochs!r})")
        self.global_batch_size = global_batch_size
        self._data = data
        self._epochs = epochs
        self._copy = copy
        self._loader_options = loader_options
        self._loaders: List[Loader] = []

    @property
    def loaders(self) -> List[Loader]:
        return list(self._loaders)

    def __call__(self, input_context: tf.distribute.InputContext) -> tf.data.Dataset:
        replicas = input_context.num_replicas_in_sync
        pipelines = input_context.num_input_pipelines
        if self.global_batch_size % replicas:
            lower = self.global_batch_size // replicas * replicas
            raise ConfigError(f"global_batch_size={self.global_batch_size} is not a multiple of the "
                              f"{replicas} replicas in sync: pick a multiple of {replicas} "
                              f"({lower or replicas} or {lower + replicas})")
        if replicas % pipelines:
            raise ConfigError(f"{replicas} replicas in sync do not divide among {pipelines} input pipelines: "
                              f"give every worker the same number of devices")
        per_replica = self.global_batch_size // replicas
        local = replicas // pipelines  # replicas this pipeline feeds, one per-replica batch each per step
        loader = Loader(self._data, batch_size=per_replica * local, rank=input_context.input_pipeline_id,
                        world_size=pipelines, **self._loader_options)
        try:
            data = dataset(loader, self._epochs, copy=self._copy)
            if local > 1:
                data = _split_among_replicas(data, loader, local, self._epochs)
        except BaseException:
            loader.close()
            raise
        self._loaders.append(loader)
        return data

    def close(self) -> None:
        """Closes every loader made (idempotent)."""
        for loader in self._loaders:
            loader.close()

    def __enter__(self) -> "DistributedDatasetFn":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"segfeed.tf.DistributedDatasetFn(global_batch_size={self.global_batch_size}, "
                f"{len(self._loaders)} loaders)")


def _split_among_replicas(data: tf.data.Dataset, loader: Loader, replicas: int,
                          epochs: Optional[int]) -> tf.data.Dataset:
    """Each loader batch as `replicas` consecutive per-replica batches of equal size."""
    options = loader.options
    batch_size = options["batch_size"]
    short = 0 if options["drop_last"] else loader.samples_per_epoch % batch_size
    if short % replicas:
        raise ConfigError(f"the last batch of each epoch of shard {loader.rank}/{loader.world_size} has {short} "
                          f"samples ({loader.samples_per_epoch} in the shard, {batch_size} a step on this worker), "
                          f"which this worker's {replicas} replicas cannot share evenly: pass drop_last=True, a "
                          f"global_batch_size that leaves a multiple of {replicas}, or give each replica a loader of "
                          f"its own (distribute_datasets_from_function(dataset_fn, tf.distribute.InputOptions("
                          f"experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA)))")
    images_spec, masks_spec = signature(loader)
    piece = None if images_spec.shape[0] is None else images_spec.shape[0] // replicas

    def pieces(images: tf.Tensor, masks: tf.Tensor) -> tf.data.Dataset:
        split = [replicas, -1 if piece is None else piece]
        return tf.data.Dataset.from_tensor_slices((tf.reshape(images, split + images_spec.shape[1:].as_list()),
                                                   tf.reshape(masks, split + masks_spec.shape[1:].as_list())))

    total = loader.batches_per_epoch * replicas * (epochs or 1)
    return data.flat_map(pieces).apply(tf.data.experimental.assert_cardinality(total))
