# Generated from the C++ option table by `python -m segfeed._stubgen python/segfeed`;
# edit the table (src/options/option_table.cc) or the generator, not this file.

import os
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from . import _core
from ._options import Augment, Decode
from ._reports import LoaderStats, MemoryPlan

__all__ = ["Loader"]

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

class Loader:
    def __init__(
        self,
        data: Optional[Union[PathLike, List[PathLike], Tuple[PathLike, ...]]] = None,
        *,
        dataset: Optional[str] = None,
        split: Optional[str] = None,
        images: Optional[PathLike] = None,
        masks: Optional[PathLike] = None,
        image_suffix: Optional[str] = None,
        mask_suffix: Optional[str] = None,
        image_extensions: Optional[Union[str, Tuple[str, ...], List[str]]] = None,
        mask_extensions: Optional[Union[str, Tuple[str, ...], List[str]]] = None,
        recursive: Optional[bool] = None,
        list_file: Optional[PathLike] = None,
        root: Optional[PathLike] = None,
        allow_outside_root: Optional[bool] = None,
        shards: Optional[Union[List[PathLike], Tuple[PathLike, ...]]] = None,
        endpoint_url: Optional[str] = None,
        batch_size: int = 16,
        prefetch_batches: int = 2,
        threads: int = 0,
        seed: int = 0,
        shuffle: Union[str, bool] = 'global',
        shard_window: int = 0,
        drop_last: bool = False,
        subset: str = 'all',
        validation_fraction: float = 0.1,
        rank: Optional[int] = None,
        world_size: Optional[int] = None,
        on_bad_file: str = 'fail',
        pinned: str = 'auto',
        size: Union[int, Tuple[int, int]] = (512, 512),
        image_dtype: str = 'float32',
        mask_dtype: Optional[str] = None,
        decode_colour: str = 'rgb',
        mask_mode: str = 'binary',
        num_classes: int = 0,
        mask_ignore_value: int = 255,
        ignore_index: int = 255,
        label_map: Union[Dict[int, int], List[int], str, NoneType] = None,
        mask_colors: Union[Dict[Tuple[int, int, int], Union[int, str]], List[Tuple[int, int, int]], str, NoneType] = None,
        class_names: Union[List[str], str, NoneType] = None,
        layout: str = 'nhwc',
        normalize: bool = False,
        mean: Optional[Tuple[float, float, float]] = None,
        std: Optional[Tuple[float, float, float]] = None,
        no_sign_request: bool = False,
        remote_attempts: int = 5,
        remote_connect_timeout_ms: int = 5000,
        remote_stall_timeout_ms: int = 10000,
        read_ahead_bytes: int = 67108864,
        remote_connections: int = 16,
        cache_dir: Optional[str] = None,
        cache_limit: Union[int, str] = 10737418240,
        augment: Optional[Augment] = ...,
        decode: Optional[Decode] = ...,
    ) -> None: ...
    def epoch(self, epoch: int, first_batch: int = 0) -> '_core.EpochIterator': ...
    def __iter__(self) -> Iterator['_core.Batch']: ...
    def __len__(self) -> int: ...
    @property
    def batches_per_epoch(self) -> int: ...
    @property
    def samples_per_epoch(self) -> int: ...
    def plan(self) -> MemoryPlan: ...
    def stats(self) -> LoaderStats: ...
    def pairs(self) -> List[Tuple[str, str, str]]: ...
    @property
    def options(self) -> Dict[str, Any]: ...
    @property
    def class_names(self) -> List[str]: ...
    @property
    def dataset_rule(self) -> str: ...
    @property
    def rank(self) -> int: ...
    @property
    def world_size(self) -> int: ...
    def state_dict(self) -> Dict[str, Any]: ...
    def load_state_dict(self, state: Dict[str, Any]) -> None: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> 'Loader': ...
    def __exit__(self, *exc_info: Any) -> None: ...
    def __reduce__(self) -> Any: ...
    def __repr__(self) -> str: ...
