"""The C++ option table as the Python layer reads it.

Every option is one entry of the C++ table (``_core.option_table()``): its
name, group, kind, default, what it accepts and a line of doc.
``segfeed.Augment`` and ``segfeed.Decode`` are made from the entries of
their group, ``Loader(...)`` takes the loader group's as keywords, and the
stubs are generated from it (``python -m segfeed._stubgen``); the C++ table
converts and checks every value. A new entry reaches Python without an edit.
"""

from __future__ import annotations

import dataclasses
import textwrap
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _core

# The table, in its own order: what --help and these docstrings list.
TABLE: Tuple[Dict[str, Any], ...] = tuple(_core.option_table())

# The Python type of each kind of option.
_KIND_TYPES: Dict[str, Any] = {
    "int": int,
    "number": float,
    "bool": bool,
    "choice": str,
    "range": Tuple[float, float],
    "triple": Tuple[float, float, float],
    "color": Union[int, Tuple[int, int, int]],
    "size": Union[int, Tuple[int, int]],
    "id_map": Union[Dict[int, int], List[int], str],
    "color_map": Union[Dict[Tuple[int, int, int], Union[int, str]], List[Tuple[int, int, int]], str],
    "names": Union[List[str], str],
    "path": str,
    "bytes": Union[int, str],
}


def group(name: str) -> List[Dict[str, Any]]:
    """The table's entries of one group ("loader", "augment", "decode")."""
    return [entry for entry in TABLE if entry["group"] == name]


def python_default(entry: Dict[str, Any]) -> Any:
    """The option's default in Python.

    The table's default, except where None is accepted and stands for the
    default rather than for a value of its own: ``mean=None`` (ImageNet's,
    unused unless normalising), ``rank=None`` (the environment's shard). A
    range's None is a value of its own (the op is off), so a range keeps its
    default.
    """
    if entry["none_means"] and entry["kind"] != "range":
        return None
    return entry["default"]


def annotation(entry: Dict[str, Any]) -> Any:
    """The option's type, Optional where None is accepted.

    A choice that still takes the bool it was before it had more values
    (shuffle: True and False are "global" and "none", as its accepts says)
    is ``Union[str, bool]``, so code written then still type-checks.
    """
    kind_type = _KIND_TYPES[entry["kind"]]
    if entry["kind"] == "choice" and "true and false" in entry["accepts"]:
        kind_type = Union[str, bool]
    return Optional[kind_type] if entry["none_means"] else kind_type


def describe(entry: Dict[str, Any], indent: str) -> str:
    """One option for an ``Args:`` or ``Attributes:`` docstring section."""
    text = f"{entry['name']}: {entry['doc']}. Accepts {entry['accepts']}"
    if entry["choices"]:
        text = f"{entry['name']}: {entry['doc']}. One of " + ", ".join(repr(c) for c in entry["choices"])
    if entry["none_means"]:
        text += f"; None: {entry['none_means']}"
    text += f". Default {python_default(entry)!r}."
    return textwrap.fill(text, width=100, initial_indent=indent, subsequent_indent=indent + "    ")


def values_of(settings: Any) -> Dict[str, Any]:
    """The option values an Augment or Decode holds, by option name."""
    return {field.name: getattr(settings, field.name) for field in dataclasses.fields(settings)}

