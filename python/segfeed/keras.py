"""Keras 3 input: a segfeed.Loader as a ``keras.utils.PyDataset``.

::

    import keras, segfeed, segfeed.keras

    train = segfeed.Loader("data", subset="train", batch_size=16, size=512, seed=0)
    val = segfeed.Loader("data", subset="validation", batch_size=16, size=512, seed=0)
    model.fit(segfeed.keras.Dataset(train), validation_data=segfeed.keras.Dataset(val),
              epochs=10, shuffle=False)

Each Keras epoch is one loader epoch (0, 1, 2, ... from ``epoch``), served
in the loader's order: segfeed shuffles, reproducibly, so ``fit`` must not
(pass ``shuffle=False``; Keras asks a PyDataset for its batches in random
order otherwise, although its documentation says a PyDataset ignores
``shuffle``). A batch asked for out of order raises segfeed.Error saying so.

Every batch is copied into a NumPy array that Keras owns and the pool buffer
goes back before ``__getitem__`` returns: Keras and TensorFlow keep an
unpredictable number of batches alive (prefetching, the signature they infer
from the first two batches), which would hold the loader's few buffers. The
copy costs one memcpy of the batch, small beside decoding it.

Importing this module imports Keras.
"""

from __future__ import annotations

import threading
import time
from typing import Any, List, Optional, Tuple

import keras
import numpy as np

from ._errors import Error
from ._loader import Loader

__all__ = ["Dataset"]


class Dataset(keras.utils.PyDataset):
    """The batches of a segfeed.Loader for ``model.fit``/``evaluate``/``predict``.

    Yields ``(images, masks)`` NumPy arrays: images N x H x W x 3 (``layout
    "nhwc"``, Keras' channels_last) and masks N x H x W x 1, of the loader's
    dtypes; N is the batch size, or less for a short last batch unless the
    loader drops it.

    How Keras drives it, and what this class does about it (measured with
    Keras 3.15): before the first epoch Keras asks for batches 0 and 1 on
    the main thread to infer the signature, then serves each epoch from a
    TensorFlow thread, asking for 0, 1, 2, ... in order. A request for batch
    0 restarts the loader's epoch (resuming a segfeed epoch at a batch index
    is cheap, so the signature's batches cost two batches, once); a request
    for batch 0 after a complete epoch served during training starts the
    next loader epoch. Any other request than the next batch or batch 0 is
    an error.

    Args:
        loader: the segfeed.Loader to serve. The Dataset starts its epochs
            itself: do not iterate the loader elsewhere meanwhile.
        epoch: the loader epoch the first Keras epoch serves; pass
            ``fit(initial_epoch=...)``'s value when you resume.
        max_queue_size: passed to PyDataset. Keras' ``workers`` and
            ``use_multiprocessing`` are not accepted: segfeed loads with its
            own threads, and Keras' workers would ask for batches out of
            order.

    Attributes:
        served: per batch handed to Keras, ``(epoch, index, sample_ids)``,
            kept when ``record=True`` (for tests and audits).
        input_seconds: seconds spent in ``__getitem__`` (waiting for the
            loader and copying); see also ``loader.stats()["stage_seconds"]
            ["consumer_wait"]``.
    """

    def __init__(self, loader: Loader, *, epoch: int = 0, record: bool = False, max_queue_size: int = 10,
                 **kwargs: Any) -> None:
        for name in ("workers", "use_multiprocessing"):
            if name in kwargs and kwargs[name] not in (1, False):
                raise Error(f"segfeed.keras.Dataset does not take {name}={kwargs[name]!r}: segfeed loads with its "
                            f"own threads (Loader(threads=...)), and Keras' workers would ask for batches out of order")
            kwargs.pop(name, None)
        if kwargs:
            raise TypeError(f"unexpected arguments: {', '.join(sorted(kwargs))}")
        if not isinstance(loader, Loader):
            raise TypeError(f"loader must be a segfeed.Loader (got {type(loader).__name__})")
        if loader.options["layout"] != "nhwc":
            raise Error(f"Keras takes channels_last images: make the loader with layout='nhwc' "
                        f"(got {loader.options['layout']!r})")
        super().__init__(workers=1, use_multiprocessing=False, max_queue_size=max_queue_size)
        self._loader = loader
        self._epoch = int(epoch)
        self._batches = loader.batches_per_epoch
        self._lock = threading.Lock()
        self._iterator: Optional[Any] = None
        self._next_index = 0
        # Whether the pass under way started after fit began its first epoch:
        # the signature's batches before it do not end an epoch.
        self._pass_counts = False
        self._training_began = False
        self._record = record
        self.served: List[Tuple[int, int, Tuple[int, ...]]] = []
        self.input_seconds = 0.0

    def __len__(self) -> int:
        return self._batches

    @property
    def loader(self) -> Loader:
        return self._loader

    @property
    def epoch(self) -> int:
        """The loader epoch being served (or next to be served)."""
        return self._epoch

    def on_epoch_begin(self) -> None:
        self._training_began = True

    def __getitem__(self, index: int) -> Tuple[np.ndarray, np.ndarray]:
        start = time.perf_counter()
        with self._lock:
            if not 0 <= index < self._batches:
                raise IndexError(f"batch {index} of an epoch of {self._batches} batches")
            if index == 0 and self._iterator is not None:
                if self._pass_counts and self._next_index == self._batches:
                    self._epoch += 1
                self._iterator = None
            if self._iterator is None:
                if index != 0:
                    raise self._out_of_order(index)
                self._iterator = self._loader.epoch(self._epoch)
                self._next_index = 0
                self._pass_counts = self._training_began
            elif index != self._next_index:
                raise self._out_of_order(index)
            batch = next(self._iterator)
            with batch:
                images = np.array(batch.images, copy=True)
                masks = np.array(batch.masks, copy=True)
                if self._record:
                    self.served.append((batch.epoch, batch.index, batch.sample_ids))
            self._next_index = index + 1
        self.input_seconds += time.perf_counter() - start
        return images, masks

    def _out_of_order(self, index: int) -> Error:
        expected = f"batch {self._next_index} or 0" if self._iterator is not None else "batch 0"
        return Error(f"segfeed.keras.Dataset was asked for batch {index} of epoch {self._epoch}, expected {expected}: "
                     f"batches come in the loader's order. Pass shuffle=False to model.fit(); segfeed shuffles "
                     f"itself (Loader(shuffle=True), a new order every epoch from the seed)")

    def __repr__(self) -> str:
        return f"segfeed.keras.Dataset({self._loader!r}, epoch={self._epoch})"

