"""Augmentation and decode settings, and the flat option dict the C++ core reads."""

from __future__ import annotations

import dataclasses
import numbers
import os
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from ._errors import ConfigError

__all__ = ["Augment", "Decode"]

Range = Optional[Tuple[float, float]]


@dataclasses.dataclass(frozen=True)
class Augment:
    """How each sample is augmented (the C++ ``AugmentOptions``).

    Flips, rotation and the resize to ``Loader(size=...)`` are one affine
    warp applied to image and mask together (bilinear for the image,
    nearest neighbour for the mask, so masks stay exactly 0/1). The colour
    ops touch the image only, in the order contrast, brightness, saturation,
    hue; a range of ``None`` switches that op off. Every parameter is drawn
    from ``(seed, epoch, sample)``, so it is the same for any thread count.

    Attributes:
        flip_lr_probability: probability of a left-right flip, in [0, 1].
        flip_ud_probability: probability of an up-down flip, in [0, 1].
        rotation_fraction: rotation angle ~ U(-f*360, +f*360) degrees about
            the output centre, f in [0, 0.5]; 0 switches rotation off.
        contrast: factor range; each channel c becomes
            (c - mean_c) * factor + mean_c. Factors >= 0.
        brightness: delta range on the [0, 1] scale, within [-1, 1].
        saturation: HSV saturation factor range, >= 0 (0 gives grey).
        hue: hue delta range as a fraction of the hue circle, within
            [-0.5, 0.5].
        fill_mode: what rotation brings in from outside the source:
            ``"constant"`` (image ``fill_value``, mask 0) or ``"reflect"``
            (image and mask mirrored about the edge).
        fill_value: image value for ``"constant"``, in [0, 255].
        antialias: reduce the image by area averaging first when it shrinks
            by more than 2x (masks never are); off only to measure its cost.
    """

    flip_lr_probability: float = 0.5
    flip_ud_probability: float = 0.5
    rotation_fraction: float = 0.2
    contrast: Range = (0.4, 0.6)
    brightness: Range = (-0.2, 0.2)
    saturation: Range = (0.4, 0.6)
    hue: Range = (-0.2, 0.2)
    fill_mode: str = "constant"
    fill_value: int = 0
    antialias: bool = True

    @classmethod
    def none(cls) -> "Augment":
        """No flips, rotation or colour jitter: resize only (``segfeed bench --no-augment``)."""
        return cls(flip_lr_probability=0.0, flip_ud_probability=0.0, rotation_fraction=0.0,
                   contrast=None, brightness=None, saturation=None, hue=None)

    @classmethod
    def geometry_only(cls) -> "Augment":
        """Flips and rotation, no colour jitter (``segfeed bench --no-color``)."""
        return cls(contrast=None, brightness=None, saturation=None, hue=None)


@dataclasses.dataclass(frozen=True)
class Decode:
    """Limits of the decode stage (the C++ ``DecodeOptions``); the defaults suit photos.

    Attributes:
        max_pixels: largest width x height accepted for an image or mask,
            checked on the header before anything is allocated.
        max_file_bytes: largest file accepted; a larger one is ``too_large``
            without being read. Each decode thread has two read buffers
            that may grow this large.
        max_pixel_scans: largest width x height x scans for a progressive
            JPEG (each scan passes over the whole image).
        scratch_headroom: the decode budget per thread as a multiple of what
            the dataset's typical photo needs; larger pairs are ``too_large``.
        mask_threshold: a mask palette colour is foreground when its
            luminance is at least this (0-255).
        jpeg_warnings: ``"error"`` refuses a JPEG that decodes only with
            warnings (grey blocks, usually) as ``corrupt_image``;
            ``"ignore"`` uses its pixels.
    """

    max_pixels: int = 100_000_000
    max_file_bytes: int = 16 << 20
    max_pixel_scans: int = 1_000_000_000
    scratch_headroom: float = 4.0
    mask_threshold: int = 128
    jpeg_warnings: str = "error"


# ImageNet statistics, the C++ OutputOptions defaults (unused unless normalising).
_IMAGENET_MEAN = (0.485, 0.456, 0.406)
_IMAGENET_STD = (0.229, 0.224, 0.225)


def _int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int (got {value!r})")
    return int(value)


def _float(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number (got {value!r})")
    return float(value)


def _bool(name: str, value: Any) -> bool:
    if value is True or value is False or type(value).__name__ == "bool_":
        return bool(value)
    raise TypeError(f"{name} must be True or False (got {value!r})")


def _str(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string (got {value!r})")
    return value


def _range(name: str, value: Range) -> Tuple[bool, Tuple[float, float]]:
    if value is None:
        return False, (0.0, 0.0)
    try:
        low, high = value
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a (min, max) pair or None (got {value!r})") from None
    return True, (_float(name, low), _float(name, high))


def _triple(name: str, value: Sequence[float]) -> Tuple[float, float, float]:
    try:
        r, g, b = value
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be 3 numbers, one per channel (got {value!r})") from None
    return (_float(name, r), _float(name, g), _float(name, b))


def _size(value: Union[int, Sequence[int]]) -> Tuple[int, int]:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value), int(value)
    try:
        height, width = value  # type: ignore[misc]
    except (TypeError, ValueError):
        raise TypeError(f"size must be an int or (height, width) (got {value!r})") from None
    return _int("size", height), _int("size", width)


def _shard(rank: Optional[int], world_size: Optional[int]) -> Tuple[int, int, bool]:
    """(rank, world_size, from_environment)."""
    if rank is None and world_size is None and (os.environ.get("RANK") or os.environ.get("WORLD_SIZE")):
        return 0, 1, True  # the C++ loader reads and checks RANK and WORLD_SIZE
    return (0 if rank is None else _int("rank", rank)), (1 if world_size is None else _int("world_size", world_size)), False


def build_options(*, batch_size: Any, prefetch_batches: Any, threads: Any, seed: Any, shuffle: Any,
                  drop_last: Any, image_dtype: Any, mask_dtype: Any, layout: Any, mean: Any, std: Any,
                  size: Any, subset: Any, validation_fraction: Any, rank: Any, world_size: Any,
                  on_bad_file: Any, pinned: Any, augment: Optional[Augment],
                  decode: Optional[Decode]) -> Dict[str, Any]:
    """The flat dict of C++ field names that segfeed._core.Loader reads.

    Only types and spellings are checked here; the values are validated by
    the C++ constructor, whose ConfigError messages reach the caller.
    """
    if augment is None:
        augment = Augment.none()
    if not isinstance(augment, Augment):
        raise TypeError(f"augment must be a segfeed.Augment or None (got {augment!r})")
    if decode is None:
        decode = Decode()
    if not isinstance(decode, Decode):
        raise TypeError(f"decode must be a segfeed.Decode or None (got {decode!r})")
    if (mean is None) != (std is None):
        raise ConfigError(f"mean and std go together: give both to normalise, or neither (got mean={mean!r}, std={std!r})")
    subset = _str("subset", subset)
    if subset == "val":
        subset = "validation"
    height, width = _size(size)
    shard_rank, shard_world_size, from_environment = _shard(rank, world_size)
    contrast_on, contrast = _range("contrast", augment.contrast)
    brightness_on, brightness = _range("brightness", augment.brightness)
    saturation_on, saturation = _range("saturation", augment.saturation)
    hue_on, hue = _range("hue", augment.hue)
    return {
        "batch_size": _int("batch_size", batch_size),
        "prefetch_batches": _int("prefetch_batches", prefetch_batches),
        "threads": _int("threads", threads),
        "seed": _int("seed", seed),
        "shuffle": _bool("shuffle", shuffle),
        "drop_last": _bool("drop_last", drop_last),
        "subset": subset,
        "validation_fraction": _float("validation_fraction", validation_fraction),
        "rank": shard_rank,
        "world_size": shard_world_size,
        "shard_from_environment": from_environment,
        "on_bad_file": _str("on_bad_file", on_bad_file),
        "pinned": _str("pinned", pinned),
        "output_width": width,
        "output_height": height,
        "flip_lr_probability": _float("flip_lr_probability", augment.flip_lr_probability),
        "flip_ud_probability": _float("flip_ud_probability", augment.flip_ud_probability),
        "rotation_fraction": _float("rotation_fraction", augment.rotation_fraction),
        "contrast_enabled": contrast_on,
        "contrast_factor": contrast,
        "brightness_enabled": brightness_on,
        "brightness_delta": brightness,
        "saturation_enabled": saturation_on,
        "saturation_factor": saturation,
        "hue_enabled": hue_on,
        "hue_delta": hue,
        "fill_mode": _str("fill_mode", augment.fill_mode),
        "fill_value": _int("fill_value", augment.fill_value),
        "antialias": _bool("antialias", augment.antialias),
        "image_dtype": _str("image_dtype", image_dtype),
        "mask_dtype": _str("mask_dtype", mask_dtype),
        "layout": _str("layout", layout),
        "normalize": mean is not None,
        "mean": _IMAGENET_MEAN if mean is None else _triple("mean", mean),
        "std": _IMAGENET_STD if std is None else _triple("std", std),
        "max_pixels": _int("max_pixels", decode.max_pixels),
        "max_file_bytes": _int("max_file_bytes", decode.max_file_bytes),
        "max_pixel_scans": _int("max_pixel_scans", decode.max_pixel_scans),
        "scratch_headroom": _float("scratch_headroom", decode.scratch_headroom),
        "mask_threshold": _int("mask_threshold", decode.mask_threshold),
        "jpeg_warnings": _str("jpeg_warnings", decode.jpeg_warnings),
    }
