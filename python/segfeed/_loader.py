"""segfeed.Loader: the Python face of the C++ segfeed::Loader."""

from __future__ import annotations

import atexit
import inspect
import os
import weakref
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple, Union

from . import _core
from ._errors import ConfigError, Error
from . import _table
from ._options import Augment, Decode

if TYPE_CHECKING:  # stubs only: the dicts' keys are the C++ field lists
    from ._reports import LoaderStats, MemoryPlan

__all__ = ["Loader"]

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

# The Loader(...) keywords the option table declares (group "loader").
_LOADER_OPTIONS = _table.group("loader")
_LOADER_OPTION_NAMES = frozenset(entry["name"] for entry in _LOADER_OPTIONS)

# The default `augment`: augmentation for training, none for a validation subset.
_TRAINING_AUGMENT = Augment()
_DEFAULT_DECODE = Decode()

# Every live core loader, closed by the exit hook below.
_live_cores: "weakref.WeakSet[_core.Loader]" = weakref.WeakSet()


def _close_live_loaders() -> None:
    for core in list(_live_cores):
        try:
            core.close()
        except Exception:  # noqa: BLE001 - exiting: close what can be closed
            pass
    # Threads that were waiting in those loaders (daemon threads included)
    # take the GIL back now, before shutdown, when Python would end them
    # with pthread_exit in the middle of C++ code.
    _core._let_threads_leave(2000)


# Runs at interpreter shutdown after threading joined the non-daemon
# threads: a training thread that outlives the main thread trains to its end,
# as non-daemon threads do, instead of finding its loader closed under it.
# Daemon threads still waiting in a loader then see its epoch end.
atexit.register(_close_live_loaders)


# The dataset keywords of Loader(), from the C++ table the CLI's dataset flags come from too.
_DATASET_KEYWORDS = tuple(entry["name"] for entry in _core.dataset_option_table())
_PATH_KEYWORDS = frozenset({"images", "masks", "list_file", "root"})


def _dataset_text(name: str, value: Any) -> bytes:
    """One dataset keyword's value as the C++ table takes it: bytes of text."""
    if name in _PATH_KEYWORDS:
        if not isinstance(value, (str, bytes, os.PathLike)):
            raise TypeError(f"{name} must be a path (got {value!r})")
        return os.fsencode(value)
    if name == "shards":
        if not isinstance(value, (list, tuple)) or not value or not all(
                isinstance(item, (str, bytes, os.PathLike)) for item in value):
            raise TypeError(f"shards must be a non-empty list of tar paths (got {value!r})")
        paths = [os.fsencode(item) for item in value]
        if any(b"," in path for path in paths):
            raise ValueError("a shard path holds a comma, which the shard list cannot carry: name the "
                             "shards by their index or a brace pattern instead")
        return b",".join(paths)
    if name in ("recursive", "allow_outside_root"):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False (got {value!r})")
        return b"true" if value else b"false"
    if name.endswith("_extensions"):
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)) or not all(isinstance(item, str) for item in items):
            raise TypeError(f"{name} must be a string or a sequence of strings like ('.jpg', '.png') (got {value!r})")
        return ",".join(items).encode()
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string (got {value!r})")
    return value.encode()


def _dataset_values(data: Any, given: Dict[str, Any]) -> Tuple[bytes, Dict[str, bytes]]:
    """The C++ dataset keywords: data as bytes, and each keyword given as bytes."""
    given = {name: value for name, value in given.items() if value is not None}
    # Loader([tar, tar, ...]): the shards, in that order.
    if isinstance(data, (list, tuple)):
        if "shards" in given:
            raise TypeError("give the shards as data or as shards, not both")
        given["shards"], data = data, None
    if data is not None and not isinstance(data, (str, bytes, os.PathLike)):
        raise TypeError(f"data must be a path or a list of tar paths (got {data!r})")
    # Loader(folder, masks=DIR) has always meant: the images are in folder.
    if data is not None and "masks" in given and "images" not in given and "dataset" not in given:
        given["images"], data = data, None
    return (os.fsencode(data) if data is not None else b""), {
        name: _dataset_text(name, value) for name, value in given.items()}


class Loader:
    """Streams augmented image/mask batches, reproducibly, in a fixed pool of buffers.

    ::

        loader = segfeed.Loader("data", batch_size=16, seed=42, layout="nchw")
        for epoch in range(10):
            for batch in loader:                   # epochs 0, 1, 2, ... in turn
                with batch:
                    x = torch.from_dlpack(batch.images)  # no copy
                    y = torch.from_dlpack(batch.masks)
                    train_step(x, y)

    The same seed gives byte-identical batches for any ``threads`` and
    ``prefetch_batches``. Memory is allocated once, here: ``prefetch_batches``
    pool buffers of one batch each plus per-thread scratch (``plan()``).
    Every option is declared and validated by the C++ option table; an
    invalid one raises ConfigError with its message, a value of the wrong
    type TypeError. The options below the dataset's are keyword-only.

    Args:
        data: the dataset's root: Carvana's layout (``data/train/<key>.jpg``
            with ``data/train_masks/<key>_mask.gif``) or the ``dataset``
            preset's; for the folders rule, the folder ``images`` and
            ``masks`` are under (``Loader(folder, masks=DIR)``: the images
            are in ``folder``). Or tar shards (WebDataset's layout,
            ``<key>.jpg`` beside ``<key>.mask.png``): a folder holding
            ``index.sfidx``, an index file, a tar, WebDataset's brace
            notation (``"out/train-{000000..000031}.tar"``) or a list of tar
            paths; a sample's id is its position in the shards, so shards
            packed from folders stream the folders' batches.
        dataset: the layout: ``"carvana"`` (the default with ``data``),
            ``"voc"``, ``"cityscapes"``, ``"ade20k"`` (presets, which also
            set their label options: ``mask_mode``, ``num_classes``,
            ``mask_ignore_value``, ``label_map``; keywords given win), or
            ``"folders"`` / ``"list"`` (the defaults with ``images`` and
            ``masks`` / with ``list_file``).
        split: a preset's split: ``"train"``, ``"val"``, ``"trainval"``
            (VOC), ``"test"`` (Cityscapes).
        images, masks: the folders of images and masks: ``<key><image_suffix>.jpg``
            pairs with ``<key><mask_suffix>.png``.
        image_suffix: between an image's key and its extension (``"_leftImg8bit"``).
        mask_suffix: between a mask's key and its extension (default
            ``"_mask"``; ``""`` pairs ``labels/abc.png`` with ``images/abc.jpg``).
        image_extensions, mask_extensions: the extensions that make a file
            an image or a mask (``(".jpg", ".png")``).
        recursive: pair by sub-folder and key through both folder trees.
        list_file: a text file of keys (one per line, looked up in
            ``images`` and ``masks``) or of image and mask paths (two columns:
            tab, comma or white space), used in its order.
        root: where a two-column list's relative paths start (default
            ``data``, else the list's folder).
        allow_outside_root: let a two-column list name files outside
            ``root`` (absolute paths, ``..``, symbolic links that lead
            elsewhere). Without it such a line is an ``outside_root``
            problem: with ``on_bad_file="fail"`` the Loader refuses to start
            and names it, with ``"skip"`` its pair is left out.
        shards: tar shards in this order (what a list as ``data`` means).
        endpoint_url: the S3 endpoint of an ``s3://`` dataset
            (``"http://127.0.0.1:9000"``: MinIO, Ceph, R2, a local server),
            before ``AWS_ENDPOINT_URL_S3``, ``AWS_ENDPOINT_URL`` and the
            profile's ``endpoint_url``; default: those, else AWS itself.
        augment: a segfeed.Augment; None means resize only. By default
            ``Augment()`` for ``subset="all"`` and ``"train"``, and none for
            ``"validation"``: a validation loader is one call,
            ``Loader(data, subset="validation")``.
        decode: a segfeed.Decode with the decode limits; None: defaults.

    Raises:
        ConfigError: an invalid option, a dataset without a complete pair.
        FileError: a folder cannot be listed; with ``on_bad_file="fail"``,
            images without a mask and list lines outside the list's root (named).

    Thread safety: calls from several threads are serialized. A Loader
    cannot be used in a forked child (DataLoader workers): segfeed has its
    own threads, use ``num_workers=0``.
    """

    def __init__(self, data: Optional[Union[PathLike, List[PathLike], Tuple[PathLike, ...]]] = None, *,
                 dataset: Optional[str] = None,
                 split: Optional[str] = None, images: Optional[PathLike] = None,
                 masks: Optional[PathLike] = None, image_suffix: Optional[str] = None,
                 mask_suffix: Optional[str] = None,
                 image_extensions: Optional[Union[str, Tuple[str, ...], List[str]]] = None,
                 mask_extensions: Optional[Union[str, Tuple[str, ...], List[str]]] = None,
                 recursive: Optional[bool] = None, list_file: Optional[PathLike] = None,
                 root: Optional[PathLike] = None, allow_outside_root: Optional[bool] = None,
                 shards: Optional[Union[List[PathLike], Tuple[PathLike, ...]]] = None,
                 endpoint_url: Optional[str] = None,
                 augment: Optional[Augment] = _TRAINING_AUGMENT, decode: Optional[Decode] = _DEFAULT_DECODE,
                 **options: Any) -> None:
        # The signature shown (__signature__, below) lists each option of the table.
        unknown = sorted(set(options) - _LOADER_OPTION_NAMES)
        if unknown:
            raise TypeError(f"Loader() got an unexpected keyword argument {unknown[0]!r}")
        given = dict(dataset=dataset, split=split, images=images, masks=masks, image_suffix=image_suffix,
                     mask_suffix=mask_suffix, image_extensions=image_extensions,
                     mask_extensions=mask_extensions, recursive=recursive, list_file=list_file, root=root,
                     allow_outside_root=allow_outside_root, shards=shards, endpoint_url=endpoint_url)
        data_bytes, dataset_values = _dataset_values(data, given)
        layout = _core.dataset_spec(data_bytes, dataset_values)
        # Every option goes to the table, defaults included (rank=None and
        # world_size=None together mean the environment's shard); the
        # layout's label options come between the defaults and the keywords.
        values = {entry["name"]: options.get(entry["name"], layout["options"].get(
            entry["name"], _table.python_default(entry))) for entry in _LOADER_OPTIONS}
        # A preset's class names name the preset's classes: a num_classes of the
        # user's own without class_names leaves names of another count out.
        names = values.get("class_names")
        if ("num_classes" in options and "class_names" not in options and names is not None
                and len(names) != values["num_classes"]):
            values["class_names"] = None
        if augment is _TRAINING_AUGMENT and _validation_subset(values["subset"]):
            augment = None
        if augment is None:
            augment = Augment.none()
        if not isinstance(augment, Augment):
            raise TypeError(f"augment must be a segfeed.Augment or None (got {augment!r})")
        if decode is None:
            decode = Decode()
        if not isinstance(decode, Decode):
            raise TypeError(f"decode must be a segfeed.Decode or None (got {decode!r})")
        values.update(_table.values_of(augment))
        values.update(_table.values_of(decode))
        self._core = _core.Loader(data_bytes, dataset_values, values)
        _live_cores.add(self._core)
        options = self._core.options()
        self._options = options
        if options["shard_from_environment"]:
            # The C++ loader accepted them, so they parse.
            self._rank, self._world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        else:
            self._rank, self._world_size = options["rank"], options["world_size"]
        self._label = ", ".join([*([repr(os.fsdecode(data_bytes))] if data_bytes else []),
                                 *(f"{name}={os.fsdecode(text)!r}" for name, text in dataset_values.items())])
        self._rule = layout["rule"]

    # -- streaming ---------------------------------------------------------

    def epoch(self, epoch: int, first_batch: int = 0) -> "_core.EpochIterator":
        """Starts ``epoch`` at batch ``first_batch`` and returns an iterator of its Batches.

        The batches are exactly batches first_batch, first_batch + 1, ... of
        the uninterrupted epoch. Starting an epoch abandons the rest of the
        previous one (its iterator then raises segfeed.Error), and the next
        ``iter(loader)`` runs epoch + 1.
        """
        return self._core.start_epoch(_index("epoch", epoch), _index("first_batch", first_batch))

    def __iter__(self) -> Iterator["_core.Batch"]:
        """Runs the next epoch: 0, 1, 2, ... like a PyTorch DataLoader, or the one
        ``load_state_dict()`` restored, from its next batch."""
        return self._core.start_epoch(None, None)

    def __len__(self) -> int:
        """Batches in one epoch (of this subset and shard)."""
        return self._core.batches_per_epoch

    @property
    def batches_per_epoch(self) -> int:
        """Batches in one epoch of this loader's subset and shard."""
        return self._core.batches_per_epoch

    @property
    def samples_per_epoch(self) -> int:
        """Samples in one epoch of this loader's subset and shard."""
        return self._core.samples_per_epoch

    # -- what it holds and did ----------------------------------------------

    def plan(self) -> MemoryPlan:
        """The memory plan in bytes (the C++ MemoryPlan, a key per field):
        pool_bytes, scratch_bytes, read_buffer_bytes, listing_bytes,
        total_bytes, ... The loader allocated exactly the pool and the scratch
        for the dataset's typical photo. `segfeed plan --json` has the same keys."""
        return self._core.plan()

    def stats(self) -> LoaderStats:
        """A snapshot of the C++ LoaderStats as a dict, a key per field (the keys
        `segfeed bench --json` has too): pool_kind (and
        pool_fallback_reason), pool and scratch bytes, outstanding_leases
        (batches held, exports included), samples_loaded / samples_skipped /
        samples_replaced, batches_delivered, input_bytes, skipped_files and
        unpaired_files (lists of dicts with path, kind, detail, message) and
        stage_seconds (thread-seconds per stage: read; decoding by role and
        format, decode_photo_jpeg, decode_photo_jpeg_roi (JPEG photos decoded
        in the sample's window only), decode_photo_png, decode_mask_png and
        decode_mask_gif, each file's time under the format its first bytes say
        it is; warp, jitter, convert, consumer_wait)."""
        return self._core.stats()

    def pairs(self) -> List[Tuple[str, str, str]]:
        """The dataset listing, (key, image path, mask path) per pair, in the listing's
        order (sorted by sub-folder and key for the folders rule, the file's order
        for a list, the shards' for shards, whose members are named
        ``"shard.tar:key.jpg"``); Batch.sample_ids index it."""
        return self._core.pairs()

    @property
    def options(self) -> Dict[str, Any]:
        """The options the C++ loader was made with: every option of the table by
        its name (the Loader keywords, the Augment and Decode fields), as the
        table resolved them (``label_map`` and ``mask_colors`` as dicts,
        ``{7: 0, 8: 1}`` and ``{(128, 0, 0): 1}``, whatever form they were
        given in), and the C++ fields behind the composite ones:
        output_width, output_height, contrast_enabled, contrast_factor (and
        the other colour ops' likewise), shard_from_environment."""
        return dict(self._options)

    @property
    def class_names(self) -> List[str]:
        """The classes' names, class i at index i: the preset's (its dataset's
        published names), or ``class_names=`` as given (a list, or a file of one
        name per line); ``[]`` when the classes are unnamed."""
        return list(self._options.get("class_names") or ())

    @property
    def dataset_rule(self) -> str:
        """How the pairs were found, in one line: the rule and its folders or list
        (``segfeed check`` prints the same line)."""
        return self._rule

    @property
    def rank(self) -> int:
        """This loader's shard."""
        return self._rank

    @property
    def world_size(self) -> int:
        """The number of shards."""
        return self._world_size

    # -- checkpoints ---------------------------------------------------------

    def state_dict(self) -> Dict[str, Any]:
        """Where the stream is, as a plain dict for a checkpoint (the C++ LoaderState).

        Keys: ``version``, ``seed``, ``epoch`` and ``next_batch``: where
        ``iter(loader)`` goes next, the first batch not yet handed out of
        the epoch being iterated, or the next epoch at 0 once that epoch
        finished or its iterator was dropped (a ``break``: take the
        checkpoint inside the loop to resume mid-epoch); ``rank``,
        ``world_size``; ``global_position``, how many samples of the epoch
        all ranks together have consumed, and ``shard_start``, where the
        epoch's sharding began (0 unless it was resumed from another world
        size); ``known_bad``, the pairs found bad under
        ``on_bad_file="skip"`` as ``[pair index, error kind]`` (a resumed
        loader does not read them either, so a file that was bad for a while
        stays out as it did in the interrupted run); ``batches_per_epoch``,
        ``options`` (those that change the bytes of a batch, as text),
        ``options_digest`` and ``listing_digest`` (the pairs' names and file
        sizes; the first state_dict() reads the size of every file).
        """
        return self._core.state()

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Continues from a ``state_dict()``: the next ``iter(loader)`` runs its epoch
        from its ``next_batch``.

        A state of this world size, of any rank (ranks checkpoint in step, as
        DDP trains), continues byte for byte: ``loader.epoch(state["epoch"],
        state["next_batch"])`` gives the same batches. A state of another
        world size continues from its ``global_position``: the rest of the
        epoch is re-sharded among this job's ranks, so that over the old
        ranks and the new every sample of the epoch is delivered once (plus
        the padding that makes the rest a multiple of the new world size, as
        DistributedSampler pads; with ``drop_last`` the rest's last samples
        may be dropped instead). That epoch has fewer batches
        (``len(iter(loader))``); iterate it with ``iter(loader)``, not
        ``loader.epoch()``. The epochs after it are the new world size's own.

        Raises ConfigError when the state is of a version this segfeed does
        not resume, comes from other options (naming them) or another
        dataset listing, when a field is missing, of another type or outside
        its range (naming the field and the range: ``world_size`` in
        [1, 2**31 - 1], ...), or when it contradicts itself as only an edit
        makes it: a ``seed`` or ``options`` other than its
        ``options_digest`` stands for, a ``batches_per_epoch`` other than
        its ``world_size`` gives, ``known_bad`` pairs under
        ``on_bad_file="fail"``, or (on another world size) a
        ``global_position`` other than its ``next_batch`` gives. Resuming
        would not give the batches the interrupted run would have had.
        ``threads``, ``prefetch_batches`` and ``pinned`` may differ.
        """
        self._core.restore(state)

    # -- life cycle ------------------------------------------------------------

    def close(self) -> None:
        """Stops loading and waits for the loader's threads (idempotent). Batches
        already handed out stay valid; iterators end."""
        self._core.close()

    @property
    def closed(self) -> bool:
        """Whether close() was called, or a bad file stopped the stream."""
        return self._core.closed

    def __enter__(self) -> "Loader":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __reduce__(self) -> Any:
        raise Error("a segfeed.Loader cannot be pickled or sent to another process: it owns threads and pinned "
                    "memory. segfeed has its own threads, so use it from the main process "
                    "(torch.utils.data.DataLoader(..., num_workers=0)) or create the Loader in each process")

    def __repr__(self) -> str:
        o = self._options
        return (f"segfeed.Loader({self._label}, batch_size={o['batch_size']}, "
                f"size={tuple(o['size'])}, image_dtype={o['image_dtype']!r}, "
                f"layout={o['layout']!r}, seed={o['seed']}, shard {self._rank}/{self._world_size}: "
                f"{self.samples_per_epoch} samples, {self.batches_per_epoch} batches per epoch)")


def _validation_subset(subset: Any) -> bool:
    """Whether `subset` names the validation subset, by the table's spelling
    (aliases included); the table raises for a value it does not take."""
    return _core.options_from_values({"subset": subset})["subset"] == "validation"


def _with_options(doc: str) -> str:
    """`doc` with the table's Loader options listed before its ``Raises:``."""
    options = "\n".join(_table.describe(entry, "        ") for entry in _LOADER_OPTIONS)
    head, raises, tail = doc.partition("\n    Raises:")
    return head.rstrip("\n") + "\n\n    Options (keyword-only, from the C++ option table):\n" + options + "\n" + raises + tail


def _signature() -> inspect.Signature:
    """Loader.__init__'s signature with the table's options in place of **options."""
    written = inspect.signature(Loader.__init__)
    parameters = [p for p in written.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    position = [p.name for p in parameters].index("augment")
    options = [inspect.Parameter(entry["name"], inspect.Parameter.KEYWORD_ONLY,
                                 default=_table.python_default(entry), annotation=_table.annotation(entry))
               for entry in _LOADER_OPTIONS]
    return written.replace(parameters=parameters[:position] + options + parameters[position:])


Loader.__doc__ = _with_options(Loader.__doc__ or "")
Loader.__init__.__signature__ = _signature()  # type: ignore[attr-defined]
Loader.__init__.__doc__ = ("Opens the dataset and makes the loader (see segfeed.Loader for every argument).\n\n"
                           "    Options (keyword-only, from the C++ option table):\n"
                           + "\n".join(_table.describe(entry, "        ") for entry in _LOADER_OPTIONS))


def _index(name: str, value: Any) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be an int (got {value!r})")
    return value.__index__()
