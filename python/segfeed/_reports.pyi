# Generated from the C++ field lists (ForEachField beside each struct in include/segfeed/)
# by `python -m segfeed._stubgen python/segfeed`; edit the struct, not this file.

from typing import Dict, List, TypedDict

__all__ = ["FileProblem", "StageSeconds", "LoaderStats", "MemoryPlan", "Affine2x3", "AugmentParams"]

class FileProblem(TypedDict):
    path: str
    kind: str
    detail: str
    message: str

class StageSeconds(TypedDict):
    read: float
    decode_photo_jpeg: float
    decode_photo_jpeg_roi: float
    decode_photo_png: float
    decode_mask_png: float
    decode_mask_gif: float
    warp: float
    jitter: float
    convert: float
    consumer_wait: float

class LoaderStats(TypedDict):
    pool_kind: str
    pool_fallback_reason: str
    pool_bytes: int
    pool_buffers: int
    outstanding_leases: int
    scratch_bytes: int
    peak_scratch_bytes: int
    read_buffer_bytes: int
    peak_read_buffer_bytes: int
    threads: int
    peak_in_flight: int
    in_flight_bound: int
    samples_loaded: int
    samples_skipped: int
    samples_replaced: int
    batches_delivered: int
    input_bytes: int
    remote_requests: int
    remote_retries: int
    remote_connections: int
    cache_hits: int
    cache_misses: int
    cache_corrupt: int
    cache_evictions: int
    cache_bytes_held: int
    cache_failures: int
    skipped_files: List[FileProblem]
    unpaired_files: List[FileProblem]
    stage_seconds: StageSeconds

class MemoryPlan(TypedDict):
    image_bytes_per_sample: int
    mask_bytes_per_sample: int
    batch_bytes: int
    pool_buffers: int
    pool_bytes: int
    threads: int
    scratch_bytes_per_thread: int
    scratch_bytes: int
    decode_budget_bytes_per_thread: int
    scratch_ceiling_bytes: int
    read_buffer_bytes: int
    in_flight_bound: int
    gpu_batch_bytes: int
    listing_bytes: int
    read_ahead_bytes: int
    total_bytes: int

class Affine2x3(TypedDict):
    xx: float
    xy: float
    x0: float
    yx: float
    yy: float
    y0: float

class AugmentParams(TypedDict):
    flip_lr: bool
    flip_ud: bool
    angle_deg: float
    scale_factor: float
    crop_x: float
    crop_y: float
    contrast_factor: float
    brightness_delta: float
    saturation_factor: float
    hue_delta: float
    source_width: float
    source_height: float
    source_to_output: Affine2x3
    output_to_source: Affine2x3
    window_x: float
    window_y: float
    window_width: float
    window_height: float
