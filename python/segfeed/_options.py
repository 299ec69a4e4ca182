"""Augmentation and decode settings: segfeed.Augment and segfeed.Decode, made
from the C++ option table's augment and decode groups (see _table.py)."""

from __future__ import annotations

import dataclasses
from typing import Any, Dict

from ._table import annotation, describe, group, python_default

__all__ = ["Augment", "Decode"]

def _settings_class(name: str, group_name: str, summary: str, methods: Dict[str, Any]) -> type:
    entries = group(group_name)
    doc = summary + "\n\nAttributes:\n" + "\n".join(describe(entry, "    ") for entry in entries) + "\n"
    fields = [(entry["name"], annotation(entry), dataclasses.field(default=python_default(entry)))
              for entry in entries]
    for method_name, method in methods.items():
        function = getattr(method, "__func__", method)
        function.__name__, function.__qualname__ = method_name, f"{name}.{method_name}"
    namespace = {"__module__": __name__, "__doc__": doc, **methods}
    return dataclasses.make_dataclass(name, fields, namespace=namespace, frozen=True)


def _no_augmentation(cls) -> "Augment":
    """No flips, rotation, random scale or colour jitter, the window centred: the resize only
    (``segfeed bench --no-augment``), as a validation loader uses. Another resize:
    ``dataclasses.replace(Augment.none(), resize="keep_ratio")``."""
    return cls(flip_lr_probability=0.0, flip_ud_probability=0.0, rotation_fraction=0.0, scale_range=None,
               crop="center", contrast=None, brightness=None, saturation=None, hue=None)


def _geometry_only(cls) -> "Augment":
    """Flips and rotation, no colour jitter (``segfeed bench --no-color``)."""
    return cls(contrast=None, brightness=None, saturation=None, hue=None)


def _mmseg_like(cls) -> "Augment":
    """The training recipe of mmsegmentation's 512x512 configs: the aspect kept
    (``resize="keep_ratio"``), a random scale in [0.5, 2.0], a random window of
    ``Loader(size=...)`` redrawn while one class covers more than 75% of a label
    map's window (``cat_max_ratio``), left-right flips and the colour jitter; no
    rotation, no up-down flip. Padding is ``fill_value`` in the image and the
    ignore value in a label map. Its validation side is ``for_validation()``:
    the whole photo fitted and padded. For binary masks, which have no class
    to balance, take ``dataclasses.replace(Augment.mmseg_like(),
    crop_max_class_ratio=1.0)``: a binary Loader refuses a ratio it would
    ignore."""
    return cls(resize="keep_ratio", scale_range=(0.5, 2.0), crop="random", crop_max_class_ratio=0.75,
               flip_ud_probability=0.0, rotation_fraction=0.0)


def _for_validation(self) -> "Augment":
    """This augmentation's validation side: ``Augment.none()`` with the same
    ``resize`` and ``fill_value``, so validation sees the photos as training
    does before its random steps (fitted and padded for ``keep_ratio``)."""
    return dataclasses.replace(type(self).none(), resize=self.resize, fill_value=self.fill_value)


Augment = _settings_class("Augment", "augment", """How each sample is augmented (the C++ ``AugmentOptions``).

Flips, rotation and the resize to ``Loader(size=...)`` are one affine
warp applied to image and mask together (bilinear for the image,
nearest neighbour for the mask, so masks stay exactly 0/1). The colour
ops touch the image only, in the order contrast, brightness, saturation,
hue; a range of ``None`` switches that op off. Every parameter is drawn
from ``(seed, epoch, sample)``, so it is the same for any thread count.
A value is checked when a Loader is made with it (ConfigError, TypeError).""",
                          {"none": classmethod(_no_augmentation), "geometry_only": classmethod(_geometry_only),
                           "mmseg_like": classmethod(_mmseg_like), "for_validation": _for_validation})

Decode = _settings_class("Decode", "decode", """Limits of the decode stage (the C++ ``DecodeOptions``); the defaults suit photos.

A value is checked when a Loader is made with it (ConfigError, TypeError).""", {})
