"""segfeed.check: the dataset checker, as the `segfeed check` command runs it."""

from __future__ import annotations

import inspect
import json as json_module
import operator
import os
import subprocess
import tempfile
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _core, _table
from ._errors import ConfigError, Error, FileError
from ._loader import Loader, _dataset_values

__all__ = ["check"]

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

# The keywords of the dataset, each with the CLI flag the table gives it
# and whether that flag is a switch (no value).
_DATASET_FLAGS: Dict[str, Tuple[str, bool]] = {
    entry["name"]: (entry["flag"], entry["switch"]) for entry in _core.dataset_option_table()}

# The options of the table that `segfeed check` takes as flags: how a mask
# file's values are read (the command's MaskFlags), the too_large limit, and
# how shards in object storage are read (its ObjectStorageFlags).
# tests/python/test_check_python.py holds this list to `segfeed check --help`.
_CHECK_OPTION_NAMES = ("mask_mode", "num_classes", "mask_ignore_value", "ignore_index", "label_map",
                       "mask_colors", "class_names", "mask_foreground", "mask_threshold", "max_pixels",
                       "no_sign_request", "remote_attempts", "remote_connect_timeout_ms",
                       "remote_stall_timeout_ms", "read_ahead_bytes", "remote_connections", "cache_dir",
                       "cache_limit")
_CHECK_OPTIONS = tuple(entry for entry in _table.TABLE if entry["name"] in _CHECK_OPTION_NAMES)


def check(data: Optional[Union[PathLike, List[PathLike], Tuple[PathLike, ...]]] = None, *,
          report: Optional[PathLike] = None, json: Optional[PathLike] = None, threads: int = 0,
          stats: str = "block", **options: Any) -> Dict[str, Any]:
    """Checks every image and mask of a dataset and returns the report as a dict.

    ::

        report = segfeed.check("data", dataset="voc", report="voc.html")
        for problem in report["problems"]:
            print(problem["path"], problem["kind"], problem["detail"])

    Runs the package's own ``segfeed check`` command (the one the ``segfeed``
    console script runs) and returns what its ``--json`` writes: ``pairs``,
    ``problems`` (a dict per problem: ``path``, ``kind``, ``detail``, ``message``;
    ``path_bytes_hex`` / ``detail_bytes_hex`` where a name is not UTF-8),
    ``summary`` (the pairing counts, ``problem_count``, ``problems_by_kind``,
    sizes, JPEG properties, channel means, foreground fractions, duplicates,
    with labels the class table) and ``error`` when there was no pair to
    check. Problems found are the report's, not an exception: the dataset is
    clean when ``report["problems"] == []`` and ``report["pairs"] > 0``.
    ``segfeed check --help`` describes every check and field.

    Args:
        data: the dataset, as ``segfeed.Loader`` takes it: the root of
            Carvana's layout or the ``dataset`` preset's, the folder
            ``images`` and ``masks`` are under, or tar shards (a folder with
            ``index.sfidx``, an index, a tar, a brace pattern or a list of
            tars), also in object storage (``s3://bucket/prefix/``,
            ``https://host/path/``; credentials as the AWS tools take them).
        report: also write the report as one self-contained HTML page here
            (``--report``): replaced only once complete, in a folder that exists.
        json: also keep the JSON report here (``--json``); by default it is
            read from a temporary file and removed.
        threads: decoding threads, 0 = one per core; the report is the same
            for any number.
        stats: the photos' channel statistics: ``"block"`` (the mean of the
            8x8 block means, JPEGs decoded at DCT scale 1/8) or ``"exact"``
            (mean and std over every pixel, at full resolution).

    Dataset keywords (``segfeed.Loader``'s, see there): dataset, split,
    images, masks, image_suffix, mask_suffix, image_extensions,
    mask_extensions, recursive, list_file, root, allow_outside_root, shards,
    endpoint_url.

    Raises:
        ConfigError: a keyword or value the command refuses, contradictory
            dataset keywords, a folder that does not exist, an output path in
            a missing folder or inside the dataset (the command's usage
            errors, exit status 2), with the command's message.
        TypeError: a keyword check does not take, a value of the wrong type.
        FileError: the JSON or HTML report could not be written (a full
            disk, a file size limit), with the command's message. A file
            that cannot be read, a folder that cannot be listed, a damaged
            shard are problems in the report, as the command lists them.
        Error: the package has no segfeed command, or it died.
    """
    # Imported here: `python -m segfeed` runs __main__ after importing the
    # package, and must not find it imported already.
    from .__main__ import command_path

    arguments = _arguments(data, report, json, threads, stats, options)
    binary = command_path()
    if not os.access(binary, os.X_OK):
        raise Error(f"the package has no segfeed command at {binary}: reinstall it "
                    "(pip install --force-reinstall segfeed)")
    with tempfile.TemporaryDirectory(prefix="segfeed-check-") as scratch:
        json_path = os.fsencode(json) if json is not None else os.fsencode(os.path.join(scratch, "report.json"))
        outputs = [json_path] + ([os.fsencode(report)] if report is not None else [])
        before = [_identity(path) for path in outputs]
        # The text report goes nowhere: the dict holds all of it. The signals
        # Python ignores stay ignored, as for the console script (execv): past
        # a file size limit, a write fails with its error instead of killing
        # the command with SIGXFSZ.
        done = subprocess.run([os.fsencode(binary), b"check", *arguments, b"--json=" + json_path],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              restore_signals=False)
        message = _message(done.stderr)
        if done.returncode == 2:
            raise ConfigError(message)
        if done.returncode not in (0, 1):
            raise Error(f"segfeed check ended with status {done.returncode}: {message}")
        # Exit status 1 is a dataset with problems, or without a pair, and
        # also an output that could not be written: the outputs, each
        # replaced only once complete, tell them apart.
        written = all(_identity(path) not in (None, old) for path, old in zip(outputs, before))
        if not written:
            raise FileError(message or "segfeed check wrote no report")
        with open(json_path, "rb") as document:
            return json_module.load(document)


def _arguments(data: Any, report: Any, json: Any, threads: Any, stats: Any,
               options: Dict[str, Any]) -> List[bytes]:
    """The command line after ``segfeed check``, each keyword as its flag; nothing runs yet."""
    dataset_given = {name: options.pop(name) for name in list(options) if name in _DATASET_FLAGS}
    unknown = sorted(set(options) - set(_CHECK_OPTION_NAMES))
    if unknown:
        raise TypeError(f"check() got an unexpected keyword argument {unknown[0]!r}")
    for name, value in (("report", report), ("json", json)):
        if value is not None and not isinstance(value, (str, bytes, os.PathLike)):
            raise TypeError(f"{name} must be a path (got {value!r})")
    if isinstance(threads, bool) or not hasattr(threads, "__index__"):
        raise TypeError(f"threads must be an int (got {threads!r})")
    if not isinstance(stats, str):
        raise TypeError(f"stats must be 'block' or 'exact' (got {stats!r})")
    # Converted and checked as Loader() does, in the keywords' words.
    data_bytes, dataset_values = _dataset_values(data, dataset_given)
    _core.dataset_spec(data_bytes, dataset_values)
    arguments = [b"--data=" + data_bytes] if data_bytes else []
    for name, text in dataset_values.items():
        flag, switch = _DATASET_FLAGS[name]
        if not switch:
            arguments.append(f"--{flag}=".encode() + text)
        elif text == b"true":
            arguments.append(f"--{flag}".encode())
        elif _core.dataset_spec(data_bytes, dataset_values) != _core.dataset_spec(
                data_bytes, {other: v for other, v in dataset_values.items() if other != name}):
            # The switch says yes only; no is its absence, which a layout that says yes overrules.
            raise ConfigError(f"{name}=False: segfeed check's --{flag} can only switch it on, and "
                              "this dataset's layout has it on")
    for entry in _CHECK_OPTIONS:
        value = options.get(entry["name"])
        if value is None:  # the layout's, else the table's default
            continue
        # Text and paths (a label map, colour or class names file) go as they
        # are: the command reads them. Other values become the flag's text here.
        text = os.fsencode(value) if isinstance(value, (str, bytes, os.PathLike)) else (
            _core.option_text(entry["name"], value).encode())
        arguments.append(f"--{entry['flag']}=".encode() + text)
    arguments += [b"--threads=%d" % operator.index(threads), b"--stats=" + stats.encode()]
    if report is not None:
        arguments.append(b"--report=" + os.fsencode(report))
    return arguments


def _identity(path: bytes) -> Optional[Tuple[int, int, int]]:
    """Which file is at `path` (device, inode, modification time), or None.

    The command writes an output under another name and renames it, so an
    output it wrote is a file other than the one there before.
    """
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino, status.st_mtime_ns


def _message(stderr: bytes) -> str:
    """The command's error, without its name and its pointer to --help."""
    lines = [line for line in stderr.decode("utf-8", errors="backslashreplace").splitlines()
             if line.strip() and not line.startswith("Try 'segfeed check --help'")]
    return "\n".join(line.removeprefix("segfeed check: ") for line in lines)


def _signature() -> inspect.Signature:
    """check()'s signature with every keyword it takes in place of **options."""
    written = inspect.signature(check)
    parameters = [p for p in written.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    loader = inspect.signature(Loader.__init__).parameters
    dataset = [loader[name].replace(default=None) for name in _DATASET_FLAGS]
    table = [inspect.Parameter(entry["name"], inspect.Parameter.KEYWORD_ONLY, default=None,
                               annotation=Optional[_table.annotation(entry)]) for entry in _CHECK_OPTIONS]
    return written.replace(parameters=parameters + dataset + table)


check.__signature__ = _signature()  # type: ignore[attr-defined]
check.__doc__ = (check.__doc__ or "").replace(
    "\n    Raises:",
    "\n    How mask files and shards in object storage are read (the table's options; None: the layout's, "
    "else the default):\n"
    + "\n".join(_table.describe(entry, "        ") for entry in _CHECK_OPTIONS) + "\n\n    Raises:", 1)
