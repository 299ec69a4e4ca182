# Generated from the C++ option table by `python -m segfeed._stubgen python/segfeed`;
# edit the table (src/options/option_table.cc) or the generator, not this file.

import os
from typing import Any, Dict, List, Optional, Tuple, Union

__all__ = ["check"]

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

def check(
    data: Optional[Union[PathLike, List[PathLike], Tuple[PathLike, ...]]] = None,
    *,
    report: Optional[PathLike] = None,
    json: Optional[PathLike] = None,
    threads: int = 0,
    stats: str = 'block',
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
    mask_mode: Optional[str] = None,
    num_classes: Optional[int] = None,
    mask_ignore_value: Optional[int] = None,
    ignore_index: Optional[int] = None,
    label_map: Union[Dict[int, int], List[int], str, NoneType] = None,
    mask_colors: Union[Dict[Tuple[int, int, int], Union[int, str]], List[Tuple[int, int, int]], str, NoneType] = None,
    class_names: Union[List[str], str, NoneType] = None,
    max_pixels: Optional[int] = None,
    mask_threshold: Optional[int] = None,
    mask_foreground: Optional[str] = None,
    no_sign_request: Optional[bool] = None,
    remote_attempts: Optional[int] = None,
    remote_connect_timeout_ms: Optional[int] = None,
    remote_stall_timeout_ms: Optional[int] = None,
    read_ahead_bytes: Optional[int] = None,
    remote_connections: Optional[int] = None,
    cache_dir: Optional[str] = None,
    cache_limit: Union[int, str, NoneType] = None,
) -> Dict[str, Any]: ...
