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
        method.__func__.__name__, method.__func__.__qualname__ = method_name, f"{name}.{method_name}"
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


Augment = _settings_class("Augment", "augment", """How each sample is augmented (the C++ ``AugmentOptions``).

Flips, rotation and the resize to ``Loader(size=...)`` are one affine
warp applied to image and mask together (bilinear for the image,
nearest neighbour for the mask, so masks stay exactly 0/1). The colour
ops touch the image only, in the order contrast, brightness, saturation,
hue; a range of ``None`` switches that op off. Every parameter is drawn
from ``(seed, epoch, sample)``, so it is the same for any thread count.
A value is checked when a Loader is made with it (ConfigError, TypeError).""",
                          {"none": classmethod(_no_augmentation), "geometry_only": classmethod(_geometry_only)})

Decode = _settings_class("Decode", "decode", """Limits of the decode stage (the C++ ``DecodeOptions``); the defaults suit photos.

A value is checked when a Loader is made with it (ConfigError, TypeError).""", {})
