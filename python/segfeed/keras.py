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
copy costs one memcpy of the batch, small beside decoding it, and is aligned
to 64 bytes so that TensorFlow takes it as it is instead of copying it again.

Importing this module imports Keras.
"""

from __future__ import annotations

import itertools
import threading
import time
import weakref
from typing import Any, List, Optional, Tuple

import keras
import numpy as np

from ._aligned import aligned_copy
from ._errors import Error
from ._loader import Loader

__all__ = ["Dataset"]

# Orders the Datasets' creations and batches: see Dataset._check_sole_server.
_EVENTS = itertools.count()
# The Datasets made over each loader, while both live.
_DATASETS: "weakref.WeakKeyDictionary[Loader, weakref.WeakSet[Dataset]]" = weakref.WeakKeyDictionary()


class Dataset(keras.utils.PyDataset):
    """The batches of a segfeed.Loader for ``model.fit``/``evaluate``/``predict``.

    Yields ``(images, masks)`` NumPy arrays: images N x H x W x 3 (``layout
    "nhwc"``, Keras' channels_last) and masks N x H x W x 1, of the loader's
    dtypes; N is the batch size, or less for a short last batch unless the
    loader drops it.

    How Keras drives it, and what this class does about it (measured with
    Keras 3.15): at every ``fit``, ``evaluate`` and ``predict`` Keras first
    asks for batches 0 and 1 on the main thread to infer the signature, then
    serves each epoch between ``on_epoch_begin`` and ``on_epoch_end`` from a
    TensorFlow thread, asking for 0, 1, 2, ... in order. A request for batch
    0 restarts the loader's epoch (resuming a segfeed epoch at a batch index
    is cheap, so the signature's batches cost two batches per call); a
    request for batch 0 after a whole epoch served within a Keras epoch
    starts the next loader epoch. Any other request than the next batch or
    batch 0 is an error. So:

    - Each ``fit`` epoch, each ``evaluate``, each ``predict`` is the next
      loader epoch; a second ``fit`` on the same Dataset continues the
      loader's epochs. Evaluate a validation loader (``subset="validation"``,
      no augmentation), whose every epoch has the same samples; evaluated
      twice, a training loader gives two differently augmented epochs.
    - Leave ``steps_per_epoch`` at its default (``len(dataset)``): with fewer
      steps Keras carries its iterator across its epochs, and with a number
      that does not divide the epoch it warns that the input ran out of data
      and trains fewer steps.
    - One Dataset per loader: a second Dataset that serves the same loader
      while the first one does (``fit(Dataset(loader),
      validation_data=Dataset(loader))``) raises segfeed.Error at its first
      batch; give validation a loader of its own (``subset="validation"``).
    - Keras resumes at epoch boundaries: ``Dataset(loader, epoch=E)`` with
      ``fit(initial_epoch=E)``. ``loader.load_state_dict`` mid-epoch is not
      used by this class.
    - Errors raised while Keras trains (a bad file under
      ``on_bad_file="fail"``, a batch out of order) reach ``fit``'s caller
      wrapped by TensorFlow (``tf.errors.UnknownError`` and the like, the
      segfeed message inside), except during the signature's two batches.
      ``on_bad_file="skip"`` keeps bad files out of training.

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
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 0:
            raise TypeError(f"epoch must be an int >= 0 (got {epoch!r})")
        self._epoch = epoch
        self._batches = loader.batches_per_epoch
        self._lock = threading.Lock()
        self._iterator: Optional[Any] = None
        self._next_index = 0
        # Whether the pass under way started within a Keras epoch (between
        # on_epoch_begin and on_epoch_end): the batches Keras takes to infer
        # the signature, before every fit/evaluate/predict, do not end an epoch.
        self._pass_counts = False
        self._within_epoch = False
        self._record = record
        self.served: List[Tuple[int, int, Tuple[int, ...]]] = []
        self.input_seconds = 0.0
        self._created = next(_EVENTS)
        self._last_served = -1
        _DATASETS.setdefault(loader, weakref.WeakSet()).add(self)

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
        self._within_epoch = True

    def on_epoch_end(self) -> None:
        self._within_epoch = False

    def __getitem__(self, index: int) -> Tuple[np.ndarray, np.ndarray]:
        start = time.perf_counter()
        with self._lock:
            if not 0 <= index < self._batches:
                raise IndexError(f"batch {index} of an epoch of {self._batches} batches")
            self._check_sole_server()
            if index == 0 and self._iterator is not None:
                if self._pass_counts and self._next_index == self._batches:
                    self._epoch += 1
                self._iterator = None
            if self._iterator is None:
                if index != 0:
                    raise self._out_of_order(index)
                self._iterator = self._loader.epoch(self._epoch)
                self._next_index = 0
                self._pass_counts = self._within_epoch
            elif index != self._next_index:
                raise self._out_of_order(index)
            batch = next(self._iterator)
            with batch:
                # Aligned, so that TensorFlow wraps the copy instead of copying it again.
                images = aligned_copy(batch.images)
                masks = aligned_copy(batch.masks)
                if self._record:
                    self.served.append((batch.epoch, batch.index, batch.sample_ids))
            self._next_index = index + 1
            self._last_served = next(_EVENTS)
        self.input_seconds += time.perf_counter() - start
        return images, masks

    def _check_sole_server(self) -> None:
        """Refuses to serve while another Dataset serves the same loader.

        ``fit(Dataset(loader), validation_data=Dataset(loader))`` would run
        validation on the training loader's batches. A Dataset that replaced
        an earlier one (a second ``fit`` with fresh wrappers, a notebook cell
        run again) is fine, although Keras may keep the earlier one alive:
        that one no longer serves. So the sign of two at once is another
        Dataset of this loader that served after this one was made.
        """
        for other in list(_DATASETS.get(self._loader, ())):
            if other is not self and other._last_served > self._created:
                raise Error(f"two segfeed.keras.Dataset objects serve one loader ({self._loader!r}): validation "
                            f"would run on the training batches. Give each its own segfeed.Loader, e.g. "
                            f"segfeed.Loader(..., subset='validation') for validation_data")

    def _out_of_order(self, index: int) -> Error:
        expected = f"batch {self._next_index} or 0" if self._iterator is not None else "batch 0"
        return Error(f"segfeed.keras.Dataset was asked for batch {index} of epoch {self._epoch}, expected {expected}: "
                     f"batches come in the loader's order. Pass shuffle=False to model.fit(); segfeed shuffles "
                     f"itself (Loader(shuffle='global'), a new order every epoch from the seed)")

    def __repr__(self) -> str:
        return f"segfeed.keras.Dataset({self._loader!r}, epoch={self._epoch})"

