"""Writes the package's type stubs from the C++ option table.

::

    python -m segfeed._stubgen python/segfeed    # in the source tree

``_options.pyi`` (Augment, Decode) and ``_loader.pyi`` (Loader) list every
option with its type and default; Loader's other methods come from the
class as written. ``_check.pyi`` (check) lists the dataset keywords and the
options segfeed check takes. ``_reports.pyi`` declares the dicts of Loader.stats(),
Loader.plan() and Batch.params from the C++ field lists (ForEachField). tests/python/test_options_table.py fails when the
committed stubs differ from what this writes.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import sys
from typing import Any, Callable, Dict, List

from . import _core, _table
from ._check import check
from ._loader import Loader
from ._options import Augment, Decode

HEADER = ("# Generated from the C++ option table by `python -m segfeed._stubgen python/segfeed`;\n"
          "# edit the table (src/options/option_table.cc) or the generator, not this file.\n")

REPORTS_HEADER = ("# Generated from the C++ field lists (ForEachField beside each struct in include/segfeed/)\n"
                  "# by `python -m segfeed._stubgen python/segfeed`; edit the struct, not this file.\n")

_LITERALS = (type(None), bool, int, float, str, tuple)


def _annotation(annotation: Any) -> str:
    # A string is the annotation as written (the modules use PEP 563).
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def _default(value: Any) -> str:
    if isinstance(value, _LITERALS) and (not isinstance(value, tuple) or all(isinstance(v, _LITERALS) for v in value)):
        return repr(value)
    return "..."


def _signature(function: Callable[..., Any], signature: inspect.Signature, indent: str = "    ") -> str:
    parts: List[str] = []
    star = False
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        prefix = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}.get(parameter.kind, "")
        star = star or parameter.kind is inspect.Parameter.VAR_POSITIONAL
        text = prefix + parameter.name
        if parameter.annotation is not parameter.empty:
            text += f": {_annotation(parameter.annotation)}"
        if parameter.default is not parameter.empty:
            text += f" = {_default(parameter.default)}"
        parts.append(text)
    returns = signature.return_annotation
    arrow = "" if returns is signature.empty else f" -> {_annotation(returns)}"
    if len(parts) > 4:  # the options: one a line
        return (f"def {function.__name__}(\n{indent}    " + f",\n{indent}    ".join(parts)
                + f",\n{indent}){arrow}: ...")
    return f"def {function.__name__}({', '.join(parts)}){arrow}: ..."


def _methods(cls: type, indent: str) -> List[str]:
    lines = []
    for name, member in vars(cls).items():
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        if isinstance(member, property):
            lines += [f"{indent}@property", indent + _signature(member.fget, inspect.signature(member.fget))]
        elif isinstance(member, classmethod):
            lines += [f"{indent}@classmethod", indent + _signature(member.__func__, inspect.signature(member.__func__))]
        elif inspect.isfunction(member):
            lines.append(indent + _signature(member, inspect.signature(member)))
    return lines


def _settings_stub(cls: type) -> List[str]:
    lines = ["@dataclass(frozen=True)", f"class {cls.__name__}:"]
    for field in dataclasses.fields(cls):
        lines.append(f"    {field.name}: {_annotation(field.type)} = {_default(field.default)}")
    lines += [line for line in _methods(cls, "    ") if not line.strip().startswith("def __")]
    return lines


def _reports_stub() -> List[str]:
    records = _core.report_fields()
    lines = [REPORTS_HEADER, "from typing import Dict, List, TypedDict", "",
             "__all__ = [" + ", ".join(f'"{name}"' for name in records) + "]"]
    for name, fields in records.items():
        lines += ["", f"class {name}(TypedDict):", *[f"    {field}: {annotation}" for field, annotation in fields]]
    return lines


def stubs() -> Dict[str, str]:
    """The stub files' names and texts."""
    options = [HEADER, "from dataclasses import dataclass", "from typing import Optional, Tuple, Union", "",
               '__all__ = ["Augment", "Decode"]', "", *_settings_stub(Augment), "", *_settings_stub(Decode)]
    loader = [HEADER, "import os", "from typing import Any, Dict, Iterator, List, Optional, Tuple, Union", "",
              "from . import _core", "from ._options import Augment, Decode",
              "from ._reports import LoaderStats, MemoryPlan", "", '__all__ = ["Loader"]', "",
              'PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]', "", "class Loader:",
              "    " + _signature(Loader.__init__, inspect.signature(Loader.__init__)),
              *[line for line in _methods(Loader, "    ") if not line.strip().startswith("def __init__(")]]
    checker = [HEADER, "import os", "from typing import Any, Dict, List, Optional, Tuple, Union", "",
               '__all__ = ["check"]', "", 'PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]',
               "", _signature(check, inspect.signature(check), indent="")]
    return {"_options.pyi": "\n".join(options) + "\n", "_loader.pyi": "\n".join(loader) + "\n",
            "_check.pyi": "\n".join(checker) + "\n", "_reports.pyi": "\n".join(_reports_stub()) + "\n"}


def main(argv: List[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m segfeed._stubgen PACKAGE_DIR  (python/segfeed in the source tree)", file=sys.stderr)
        return 2
    for name, text in stubs().items():
        with open(os.path.join(argv[0], name), "w", encoding="utf-8") as stub:
            stub.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
