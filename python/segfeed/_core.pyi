"""Type stubs of segfeed._core, the C++ extension (see segfeed/__init__.py)."""

from typing import Any, Dict, Iterator, List, Optional, Tuple

from ._reports import AugmentParams, FileProblem, LoaderStats, MemoryPlan

class Tensor:
    """One tensor of a Batch (its images or masks), in the loader's pool memory.

    Exports without a copy through DLPack and the buffer protocol. The pool
    buffer goes back only when the Batch is released and every export is gone.
    """

    @property
    def shape(self) -> Tuple[int, int, int, int]: ...
    @property
    def strides(self) -> Tuple[int, int, int, int]:
        """Strides in bytes."""
    @property
    def dtype(self) -> str:
        """'uint8', 'float16' or 'float32'."""
    @property
    def nbytes(self) -> int: ...
    @property
    def data_ptr(self) -> int:
        """Address of the first element (64-byte aligned, in fact page aligned)."""
    def __len__(self) -> int: ...
    def __dlpack__(self, *, stream: Any = None, max_version: Optional[Tuple[int, int]] = None,
                   dl_device: Optional[Tuple[int, int]] = None, copy: Optional[bool] = None) -> Any:
        """A DLPack capsule (no copy); copy=True or another device raises BufferError."""
    def __dlpack_device__(self) -> Tuple[int, int]:
        """(1, 0): kDLCPU, device 0."""
    def __buffer__(self, flags: int) -> memoryview: ...

class Batch:
    """One batch from a Loader, on loan from its pool. After release() every
    attribute but `released` raises segfeed.Error."""

    @property
    def images(self) -> Tensor:
        """N x H x W x 3 ('nhwc') or N x 3 x H x W ('nchw'), of image_dtype."""
    @property
    def masks(self) -> Tensor:
        """N x H x W x 1 of mask_dtype, exactly 0 or 1."""
    @property
    def epoch(self) -> int: ...
    @property
    def index(self) -> int:
        """Index of the batch within its epoch (and shard)."""
    @property
    def size(self) -> int:
        """Samples in this batch: batch_size, or fewer for a short last batch."""
    @property
    def batch_size(self) -> int: ...
    @property
    def layout(self) -> str: ...
    @property
    def sample_ids(self) -> Tuple[int, ...]:
        """Per sample, the index of its pair in Loader.pairs()."""
    @property
    def params(self) -> List[AugmentParams]:
        """Per sample, the augmentation applied (the C++ AugmentParams, a key per field)."""
    @property
    def released(self) -> bool: ...
    def release(self) -> None:
        """Gives up this Batch's hold on its buffer (idempotent)."""
    def __enter__(self) -> "Batch": ...
    def __exit__(self, *exc_info: Any) -> None: ...

class EpochIterator(Iterator[Batch]):
    """The batches of one epoch, in order."""

    @property
    def epoch(self) -> int: ...
    @property
    def first_batch(self) -> int: ...
    def __iter__(self) -> "EpochIterator": ...
    def __next__(self) -> Batch: ...
    def __len__(self) -> int:
        """Batches this iterator yields: batches_per_epoch - first_batch."""

class Loader:
    """The C++ loader behind segfeed.Loader; use segfeed.Loader."""

    def __init__(self, data: bytes, dataset: Dict[str, bytes], options: Dict[str, Any]) -> None: ...
    def start_epoch(self, epoch: Optional[int], first_batch: Optional[int]) -> EpochIterator: ...
    def close(self) -> None: ...
    def position(self) -> Tuple[int, int, int]: ...  # epoch, next_batch, shard_start
    def state(self) -> Dict[str, Any]: ...
    def restore(self, state: Dict[str, Any]) -> None: ...
    @property
    def batches_per_epoch(self) -> int: ...
    @property
    def samples_per_epoch(self) -> int: ...
    @property
    def closed(self) -> bool: ...
    def plan(self) -> MemoryPlan: ...
    def stats(self) -> LoaderStats: ...
    def pairs(self) -> List[Tuple[str, str, str]]: ...
    def problems(self) -> List[FileProblem]: ...
    def options(self) -> Dict[str, Any]:
        """Every option of the table by name, and the C++ fields behind the composite ones."""
    def stream_options_digest(self) -> str:
        """16 hex digits naming the options that change the stream's bytes."""

def dataset_spec(data: bytes, values: Dict[str, bytes]) -> Dict[str, Any]:
    """The rule the dataset keywords name (name, rule) and the options its layout implies."""
def dataset_option_table() -> List[Dict[str, Any]]:
    """The dataset keywords of segfeed.Loader and flags of the CLI: name, flag, doc, switch."""
def build_info() -> Dict[str, Any]:
    """What this copy of segfeed was built with: version, cuda_runtime, library versions."""
def option_table() -> List[Dict[str, Any]]:
    """Every option of the C++ option table, one dict each: name, flag, group, kind, doc,
    default, none_means, accepts, in_stream, stream_line_at_default, choices."""
def report_fields() -> Dict[str, List[Tuple[str, str]]]:
    """The fields of the dicts stats(), plan(), Batch.params and the file problems in them
    give (the C++ field lists), by struct name: a list of (name, annotation) each."""
def options_from_values(values: Dict[str, Any]) -> Dict[str, Any]:
    """The options the table makes of `values`, checked as a Loader would (see Loader.options)."""
def option_text(name: str, value: Any) -> str:
    """`value` as the option's command-line flag takes it, checked by the option's entry alone."""
def stream_options_digest(values: Dict[str, Any]) -> str:
    """16 hex digits naming the options of `values` that change the stream's bytes."""
