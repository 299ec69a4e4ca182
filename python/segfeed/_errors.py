"""segfeed's exceptions. The messages are the C++ library's, unchanged."""

from __future__ import annotations

__all__ = ["Error", "ConfigError", "FileError", "PoolExhaustedError"]


class Error(Exception):
    """Base class of every error segfeed raises.

    Raised as itself for misuse of the Python objects: a released Batch, a
    closed Loader, a Loader used in a forked child process, an epoch
    iterator superseded by a later one.
    """


class ConfigError(Error, ValueError):
    """An invalid option, or a dataset the options cannot stream.

    The message names the option and the bad value, as the C++ validation
    words it: ``batch_size must be >= 1 (got 0)``. Also a ``ValueError``.
    """


class FileError(Error):
    """A file that cannot be used: missing, unreadable, corrupt, too large.

    Raised by ``Loader(...)`` when folders cannot be listed or (with
    ``on_bad_file="fail"``) images have no mask, and by the epoch iterator
    when the stream meets a bad file under ``on_bad_file="fail"``, after the
    batches before it. The loader is closed afterwards.

    Attributes:
        path: the file, as the listing names it.
        kind: what is wrong, a stable name: ``missing_mask``,
            ``orphan_mask``, ``missing_image``, ``duplicate_key``,
            ``outside_root`` (a list names a file outside its root; see
            ``allow_outside_root``), ``corrupt_image``, ``corrupt_mask``,
            ``size_mismatch``, ``non_binary_mask``, ``unsupported_format``,
            ``too_large``, ``empty_file``, ``io_error``, ``label_out_of_range``
            (a label map value that is no class and not mask_ignore_value) or
            ``suspicious_mask`` (from the checker).
        detail: what a person can act on ("truncated GIF ...").
    """

    def __init__(self, message: str, path: str = "", kind: str = "", detail: str = "") -> None:
        super().__init__(message)
        self.path = path
        self.kind = kind
        self.detail = detail

    def __reduce__(self):  # keeps the attributes across pickling (multiprocessing)
        return (type(self), (str(self), self.path, self.kind, self.detail))


class PoolExhaustedError(Error):
    """The consumer holds every pool buffer, so no batch can be loaded.

    Raised by the epoch iterator instead of waiting forever. Every Batch not
    yet released, and every array exported from one, holds a buffer; there
    are ``prefetch_batches`` of them. Release batches (or drop the arrays)
    and go on: the loader is still usable.
    """
