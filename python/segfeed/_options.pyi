# Generated from the C++ option table by `python -m segfeed._stubgen python/segfeed`;
# edit the table (src/options/option_table.cc) or the generator, not this file.

from dataclasses import dataclass
from typing import Optional, Tuple, Union

__all__ = ["Augment", "Decode"]

@dataclass(frozen=True)
class Augment:
    resize: str = 'stretch'
    scale_range: Optional[Tuple[float, float]] = None
    crop: str = 'random'
    crop_max_class_ratio: float = 1.0
    flip_lr_probability: float = 0.5
    flip_ud_probability: float = 0.5
    rotation_fraction: float = 0.2
    contrast: Optional[Tuple[float, float]] = (0.4, 0.6)
    brightness: Optional[Tuple[float, float]] = (-0.2, 0.2)
    saturation: Optional[Tuple[float, float]] = (0.4, 0.6)
    hue: Optional[Tuple[float, float]] = (-0.2, 0.2)
    colour_model: str = 'hsv'
    fill_mode: str = 'constant'
    fill_value: Union[int, Tuple[int, int, int]] = 0
    antialias: bool = True
    @classmethod
    def none(cls) -> 'Augment': ...
    @classmethod
    def geometry_only(cls) -> 'Augment': ...
    @classmethod
    def mmseg_like(cls) -> 'Augment': ...
    def for_validation(self) -> 'Augment': ...

@dataclass(frozen=True)
class Decode:
    max_pixels: int = 100000000
    max_file_bytes: int = 16777216
    max_pixel_scans: int = 1000000000
    scratch_headroom: float = 4.0
    mask_threshold: int = 128
    mask_foreground: str = 'nonzero'
    jpeg_warnings: str = 'error'
