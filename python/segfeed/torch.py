"""PyTorch adapter: a Loader's batches as torch tensors, without a copy.

::

    import segfeed, segfeed.torch, torch

    loader = segfeed.Loader("data", batch_size=16, size=512, layout="nchw", seed=0)
    for epoch in range(10):
        for images, masks in segfeed.torch.batches(loader, epoch):
            images, masks = segfeed.torch.to_device(images, masks, "cuda")  # or use them on the CPU
            loss = criterion(model(images), masks)                           # images N x 3 x H x W
            ...                                                              # masks  N x 1 x H x W

``batches`` yields plain ``torch.Tensor`` s made by ``torch.from_dlpack``
over the loader's pool memory. A pool buffer goes back to the loader when
both tensors of its pair, and every view of them, are gone: the adapter
releases its ``segfeed.Batch`` before yielding, so the tensors' DLPack
capsules are the only hold left. Keep a pair past the next step only if the
pool has room for it (``prefetch_batches`` counts the buffers you hold; a
loop that holds one pair while asking for the next needs 2, the default),
and ``.clone()`` what you want to keep for longer. When every buffer is held
the next batch raises ``segfeed.PoolExhaustedError`` instead of waiting
forever.

Image layout, the trade-off. Both give images of shape N x 3 x H x W:

- ``Loader(layout="nchw")``: the pool holds planar channels and the images
  are contiguous in PyTorch's default memory format; every model takes them
  as they are.
- ``Loader(layout="nhwc")`` (the default, and what Keras and TensorFlow
  want): the images are a ``channels_last`` view of the N x H x W x 3
  buffer (``images.is_contiguous(memory_format=torch.channels_last)``), still
  no copy. PyTorch's convolutions follow their input's memory format, so
  the activations stay ``channels_last`` too; convert the model once
  (``model.to(memory_format=torch.channels_last)``) so that its weights are
  not converted at every call. That is the fast path for convolutions on
  GPUs with tensor cores (mixed precision) and usually with oneDNN on the
  CPU; measure with your model. Code that needs contiguous NCHW
  (``.view()`` on a flattened batch, some custom kernels) must
  ``.contiguous()`` or ``.reshape()``, a copy.

Masks are always N x 1 x H x W: a view of the N x H x W x 1 buffer, which is
contiguous in both formats, so ``BCEWithLogitsLoss`` takes them against a
one-channel output as they are.

Importing ``segfeed`` does not import this module, nor torch; importing
``segfeed.torch`` imports torch.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Deque, Dict, Optional, Tuple, Union

try:
    import torch
    import torch.utils.data
except ImportError as error:  # pragma: no cover - only without PyTorch
    raise ImportError("segfeed.torch needs PyTorch (import torch failed); segfeed itself works without it") from error

from . import _core
from ._errors import ConfigError
from ._loader import Loader

__all__ = ["Batches", "Dataset", "batches", "synchronize", "to_device"]

Pair = Tuple[torch.Tensor, torch.Tensor]


def _tensors(batch: "_core.Batch", info: bool) -> Tuple[Any, ...]:
    """The batch's images (N x 3 x H x W) and masks (N x 1 x H x W) as torch views of its
    pool memory, and its description when asked for; releases the Batch's own hold."""
    with batch:
        images = torch.from_dlpack(batch.images)
        masks = torch.from_dlpack(batch.masks).permute(0, 3, 1, 2)
        if batch.layout == "nhwc":
            images = images.permute(0, 3, 1, 2)  # channels_last: a view, no copy
        if not info:
            return images, masks
        description = {"epoch": batch.epoch, "index": batch.index, "sample_ids": list(batch.sample_ids),
                       "params": batch.params}
        return images, masks, description


class Batches:
    """The batches of one epoch as ``(images, masks)`` torch tensor pairs (see ``batches``).

    An iterator with a length: ``len()`` is the number of pairs it yields in
    all, ``epoch`` the epoch it streams. It holds no pair itself once it has
    yielded it.
    """

    def __init__(self, epoch_iterator: "_core.EpochIterator", info: bool = False) -> None:
        self._epoch_iterator = epoch_iterator
        self._info = info

    @property
    def epoch(self) -> int:
        """The epoch these batches belong to."""
        return self._epoch_iterator.epoch

    @property
    def first_batch(self) -> int:
        """Index of the first batch in the epoch (non-zero when resumed)."""
        return self._epoch_iterator.first_batch

    def __iter__(self) -> "Batches":
        return self

    def __next__(self) -> Tuple[Any, ...]:
        return _tensors(next(self._epoch_iterator), self._info)

    def __len__(self) -> int:
        """Pairs this iterator yields in all: batches_per_epoch - first_batch."""
        return len(self._epoch_iterator)

    def __repr__(self) -> str:
        return f"segfeed.torch.Batches(epoch {self.epoch}, from batch {self.first_batch}, {len(self)} batches)"


def batches(loader: Loader, epoch: Optional[int] = None, first_batch: int = 0, *, info: bool = False) -> Batches:
    """The batches of ``epoch``, from ``first_batch`` on, as ``(images, masks)`` torch tensors.

    Exactly ``loader.epoch(epoch, first_batch)``'s batches (with ``epoch``
    None: ``iter(loader)``'s, the next epoch or the one ``load_state_dict()``
    restored, which is how to continue a checkpoint of another world size),
    in order, without a copy: images N x 3 x H x W of the loader's ``image_dtype`` (contiguous
    from ``layout="nchw"``, a ``channels_last`` view from ``"nhwc"``; see the
    module's docstring for the trade-off), masks N x 1 x H x W of its
    ``mask_dtype``. N is ``batch_size``, or fewer for a short last batch.

    The epoch starts now (abandoning the loader's previous one, as
    ``loader.epoch`` does). Each pair holds its pool buffer until both
    tensors and every view of them are gone; for a CUDA device, copy it with
    ``to_device``, which keeps the buffer until the copy is done.

    Args:
        loader: the segfeed.Loader to stream from.
        epoch: the epoch; its order and augmentation come from (seed, epoch).
            None: where the loader stands (``iter(loader)``).
        first_batch: resume the epoch at this batch (a checkpoint's
            ``next_batch`` at the same world size): the pairs are those the
            uninterrupted epoch has from there. Only with an ``epoch``.
        info: yield ``(images, masks, info)`` instead, where ``info`` is a
            dict with the batch's ``epoch``, ``index``, ``sample_ids`` (per
            sample, the index of its pair in ``loader.pairs()``) and
            ``params`` (per sample, the augmentation applied).

    Returns:
        An iterator of the pairs with ``len()``, the number it yields.
    """
    if epoch is None:
        if first_batch:
            raise ConfigError(f"first_batch={first_batch} needs an epoch: with epoch=None the batches continue "
                              f"where the loader stands")
        return Batches(iter(loader), info)
    return Batches(loader.epoch(epoch, first_batch), info)


class Dataset(torch.utils.data.IterableDataset):
    """A Loader as a ``torch.utils.data.IterableDataset`` of whole batches.

    ::

        dataset = segfeed.torch.Dataset(loader)
        data = torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=0)
        for epoch in range(10):
            for images, masks in data:        # one loader epoch per iter(data)
                ...
            torch.save({"model": model.state_dict(), "data": dataset.state_dict()}, path)

    Each ``iter()`` runs the loader's next epoch (0, 1, 2, ..., or the rest of
    the epoch a ``load_state_dict()`` restored), yielding what ``batches``
    yields. The batches are already whole, so give the DataLoader
    ``batch_size=None``. ``pin_memory=True`` gains nothing: with segfeed
    built for CUDA the pool is pinned already, otherwise it copies every
    batch; either way copy to the GPU with ``to_device``.

    ``num_workers`` must be 0: segfeed loads on its own threads, and a Loader
    in a DataLoader worker process raises ``segfeed.Error`` saying so (from
    ``iter()`` in a forked worker, from pickling under the spawn start
    method) instead of every worker streaming the whole epoch.

    Args:
        loader: the segfeed.Loader to stream from.
        info: yield ``(images, masks, info)`` as ``batches(..., info=True)``
            (through the DataLoader the tuple arrives as a list).
    """

    def __init__(self, loader: Loader, *, info: bool = False) -> None:
        super().__init__()
        self.loader = loader
        self.info = info

    def __iter__(self) -> Batches:
        return Batches(iter(self.loader), self.info)

    def __len__(self) -> int:
        """Batches in one whole epoch (a resumed epoch yields the rest of them)."""
        return self.loader.batches_per_epoch

    def state_dict(self) -> Dict[str, Any]:
        """``loader.state_dict()``: where the stream is, for a checkpoint.

        Taken between batches, it points at the batch after the last one the
        DataLoader handed out (with ``num_workers=0`` the DataLoader reads
        nothing ahead), so a run resumed from it sees, byte for byte, the
        batches the uninterrupted run would have seen next.
        """
        return self.loader.state_dict()

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """``loader.load_state_dict(state)``: the next ``iter()`` continues that epoch
        from its next batch (a state of another world size: the rest of that
        epoch, re-sharded). Raises segfeed.ConfigError when the state is of
        other options or another dataset listing."""
        self.loader.load_state_dict(state)

    def __repr__(self) -> str:
        return f"segfeed.torch.Dataset({self.loader!r})"


class _PendingCopies:
    """Host tensors that CUDA copies still read from, each kept until an event
    recorded after its copy has completed. Guarded by ``_lock``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: Deque[Tuple[Any, Tuple[torch.Tensor, ...]]] = deque()

    def add(self, event: Any, sources: Tuple[torch.Tensor, ...]) -> None:
        """Keeps ``sources`` until ``event`` has completed. Waits for the copies
        added before, so at most one pair (the newest) stays held: the older
        ones were enqueued a training step earlier and are as good as done."""
        with self._lock:
            older = list(self._pending)
            self._pending.clear()
            self._pending.append((event, sources))
        for old_event, _ in older:
            old_event.synchronize()
        del older  # the buffers go back to the loader here

    def synchronize(self) -> None:
        """Waits for every pending copy and lets go of its sources."""
        with self._lock:
            pending = list(self._pending)
            self._pending.clear()
        for event, _ in pending:
            event.synchronize()
        del pending

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)


_pending_copies = _PendingCopies()


def to_device(images: torch.Tensor, masks: torch.Tensor, device: Union[str, torch.device, int],
              non_blocking: bool = True) -> Pair:
    """Copies a pair from ``batches`` to ``device``, keeping its pool buffer until the copy is done.

    PyTorch protects only host memory of its own during an asynchronous
    copy: ``images.to("cuda", non_blocking=True)`` returns while the GPU is
    still reading the loader's pinned buffer, and if the pair's tensors
    were dropped then, the buffer would go back to the pool and be
    overwritten by the next batch under the copy. This function records a
    CUDA event on the device's current stream after the two copies and
    keeps the host tensors (and so the buffer) until that event has
    completed. It waits for that at its next call or at ``synchronize()``;
    by then the copy, enqueued before a whole training step, is normally
    long done, and at most one pair is held this way. Work queued later on
    the same stream sees the copied data, as usual.

    For a CPU device the tensors come back as they are (no copy). For
    another device type, or with ``non_blocking=False``, the copy is
    complete when this returns and nothing is held.

    Args:
        images: images from ``batches`` (or any tensors in host memory).
        masks: masks from ``batches``.
        device: the target, ``"cuda"``, ``"cuda:1"``, a ``torch.device``.
        non_blocking: copy asynchronously (truly so from pinned memory:
            ``Loader(pinned="cuda")``, or ``"auto"`` with segfeed built for CUDA).

    Returns:
        The pair on ``device``, with the strides of the source
        (``channels_last`` stays ``channels_last``).
    """
    device = torch.device(device)
    if device.type != "cuda" or not non_blocking:
        return images.to(device), masks.to(device)
    device_images = images.to(device, non_blocking=True)
    device_masks = masks.to(device, non_blocking=True)
    event = torch.cuda.Event()
    event.record(torch.cuda.current_stream(device))
    _pending_copies.add(event, (images, masks))
    return device_images, device_masks


def synchronize() -> None:
    """Waits for the copies ``to_device`` started and gives their pool buffers back.

    Not needed in a training loop (each ``to_device`` call does it for the
    copies before it); call it before holding every other buffer, or to
    see ``loader.stats()["outstanding_leases"]`` at 0 after the last batch.
    """
    _pending_copies.synchronize()


def _pending_count() -> int:
    """Pairs that to_device still holds (for tests)."""
    return len(_pending_copies)
