"""segfeed: bounded-memory, reproducible image/mask batches for segmentation training.

::

    import segfeed, torch

    with segfeed.Loader("data", batch_size=16, size=(512, 512), layout="nchw", seed=0) as loader:
        for epoch in range(3):
            for batch in loader:                         # epoch 0, 1, 2
                with batch:                              # the buffer goes back at the end
                    images = torch.from_dlpack(batch.images)  # 16 x 3 x 512 x 512 float32, no copy
                    masks = torch.from_dlpack(batch.masks)    # 16 x 512 x 512 x 1, exactly 0 or 1

``Batch.images`` and ``Batch.masks`` export the loader's pool memory through
DLPack and the buffer protocol (``numpy.asarray``, ``numpy.from_dlpack``,
``torch.from_dlpack``, ``tf.experimental.dlpack.from_dlpack(t.__dlpack__())``);
a buffer goes back to the loader only when its Batch is released and every
array exported from it is gone. Importing segfeed needs no framework.

Trainer adapters, each imported on its own: ``segfeed.torch`` (batches as
torch tensors, a DataLoader Dataset, ``to_device``), ``segfeed.keras``
(a ``keras.utils.PyDataset``) and ``segfeed.tf`` (a ``tf.data.Dataset``).

Before a long run, ``segfeed.check("data")`` decodes every file of the
dataset and returns the report ``segfeed check --json`` writes (problems,
pairing, sizes, classes); ``report="report.html"`` also writes its HTML page.
"""

from ._check import check
from ._core import Batch, EpochIterator, Tensor, build_info
from ._errors import ConfigError, Error, FileError, PoolExhaustedError
from ._loader import Loader
from ._options import Augment, Decode
from ._unwarp import unwarp, unwarp_matrix

__version__: str = build_info()["version"]

__all__ = [
    "Augment",
    "Batch",
    "ConfigError",
    "Decode",
    "EpochIterator",
    "Error",
    "FileError",
    "Loader",
    "unwarp",
    "unwarp_matrix",
    "PoolExhaustedError",
    "Tensor",
    "build_info",
    "check",
]
