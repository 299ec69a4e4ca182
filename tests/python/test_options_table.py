"""The Python options come from the C++ option table: every entry is a keyword or a field
with the table's default, is in the stubs, and is checked with the table's words."""

import ast
import dataclasses
import inspect
import re

import numpy as np
import pytest
import segfeed
from segfeed import _core, _stubgen, _table

from conftest import REPO

TABLE = _core.option_table()
NAMES = [entry["name"] for entry in TABLE]
OPTIONS = dict(batch_size=2, size=(32, 48), threads=2, shuffle=False)
DATASET_ARGUMENTS = {"self", "data", *(entry["name"] for entry in _core.dataset_option_table()), "augment", "decode"}


@pytest.fixture(autouse=True)
def no_shard_in_the_environment(monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)


def entry_of(name):
    return next(entry for entry in TABLE if entry["name"] == name)


def test_the_table_lists_each_option_once_with_its_description():
    assert len(NAMES) == len(set(NAMES))
    for entry in TABLE:
        assert set(entry) == {"name", "flag", "group", "kind", "doc", "default", "none_means", "accepts",
                              "in_stream", "stream_line_at_default", "choices"}
        assert entry["group"] in ("loader", "augment", "decode") and entry["doc"] and entry["accepts"]
        assert bool(entry["choices"]) == (entry["kind"] == "choice"), entry
        if entry["kind"] == "choice":
            assert entry["default"] in entry["choices"]
    assert entry_of("size")["default"] == (512, 512)
    assert entry_of("mask_dtype")["choices"] == ["uint8", "float32", "int32", "int64"]
    assert entry_of("contrast")["default"] == (0.4, 0.6) and entry_of("contrast")["none_means"]
    assert not entry_of("threads")["in_stream"] and entry_of("seed")["in_stream"]


@pytest.mark.parametrize("name", NAMES)
def test_every_option_is_a_keyword_or_field_with_the_tables_default(name):
    entry = entry_of(name)
    if entry["group"] == "loader":
        parameter = inspect.signature(segfeed.Loader).parameters[name]
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
        default = parameter.default
    else:
        settings = segfeed.Augment if entry["group"] == "augment" else segfeed.Decode
        default = {field.name: field.default for field in dataclasses.fields(settings)}[name]
    if default is None and entry["default"] is not None:
        # None where it stands for the default (mean: ImageNet's, rank: the environment's or 0).
        assert entry["none_means"]
        assert _core.options_from_values({name: None})[name] == entry["default"]
    else:
        assert default == entry["default"]
    assert name in segfeed.Loader.__doc__ or name in (segfeed.Augment.__doc__ + segfeed.Decode.__doc__)


def test_the_python_names_are_the_tables_and_nothing_else():
    loader = set(inspect.signature(segfeed.Loader).parameters) - DATASET_ARGUMENTS
    assert loader == {e["name"] for e in TABLE if e["group"] == "loader"}
    assert [f.name for f in dataclasses.fields(segfeed.Augment)] == [e["name"] for e in TABLE if e["group"] == "augment"]
    assert [f.name for f in dataclasses.fields(segfeed.Decode)] == [e["name"] for e in TABLE if e["group"] == "decode"]


def stub_defaults():
    """Every option the committed stubs declare, with its annotation and default."""
    declared = {}
    for stub in ("_loader.pyi", "_options.pyi"):
        tree = ast.parse((REPO / "python/segfeed" / stub).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "__init__":
                for argument, default in zip(node.args.kwonlyargs, node.args.kw_defaults):
                    declared[argument.arg] = (ast.unparse(argument.annotation), ast.unparse(default))
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                declared[node.target.id] = (ast.unparse(node.annotation), ast.unparse(node.value))
    return declared


@pytest.mark.parametrize("name", NAMES)
def test_the_stub_declares_every_option_with_its_type_and_default(name):
    entry = entry_of(name)
    annotation, default = stub_defaults()[name]
    assert ast.literal_eval(default) == _table.python_default(entry)
    assert annotation == inspect.formatannotation(_table.annotation(entry))


def test_the_committed_stubs_are_what_the_table_makes():
    for stub, text in _stubgen.stubs().items():
        committed = REPO / "python/segfeed" / stub
        assert committed.is_file() and committed.read_text() == text, (
            f"python/segfeed/{stub} is not what the option table makes: regenerate it with "
            "`python -m segfeed._stubgen python/segfeed` (in the source tree, with segfeed installed) and commit it")


def out_of_range(entry):
    """A value the option refuses, derived from its kind and what it accepts, and the error it gives."""
    kind, accepts = entry["kind"], entry["accepts"]
    bounds = re.search(r"\[([^,\]]+), ([^\]]+)\]", accepts)
    if kind == "int":
        minimum = re.search(r"(?:>= |in \[)(-?\d+)", accepts).group(1)
        return int(minimum) - 1, segfeed.ConfigError
    if kind == "number":
        return float(bounds.group(2)) + 1, segfeed.ConfigError
    if kind == "choice":
        return "no-such-choice", segfeed.ConfigError
    if kind == "range":
        return (float(bounds.group(2)), float(bounds.group(1))), segfeed.ConfigError
    if kind == "triple":
        return (0.5, 0.5), TypeError
    if kind == "color":
        return (0, 256, 0), segfeed.ConfigError  # levels are 0-255
    if kind == "size":
        return int(bounds.group(1)) - 1, segfeed.ConfigError
    if kind == "bool":
        return "yes", TypeError
    if kind == "id_map":
        return {70000: 0}, segfeed.ConfigError  # source ids are 0-65535
    if kind == "color_map":
        return {(300, 0, 0): 1}, TypeError  # channels are 0-255
    if kind == "names":
        return ["road", ""], segfeed.ConfigError  # a name is not empty
    if kind == "path":
        return "", segfeed.ConfigError  # a folder is named
    if kind == "bytes":
        return "10XB", segfeed.ConfigError  # no such unit
    pytest.fail(f"no out-of-range value for kind {kind!r}: add one here")


def loader_with(demo, entry, value):
    if entry["group"] == "loader":
        return segfeed.Loader(demo, **{**OPTIONS, entry["name"]: value})
    settings = {"augment": segfeed.Augment, "decode": segfeed.Decode}[entry["group"]](**{entry["name"]: value})
    return segfeed.Loader(demo, **OPTIONS, **{entry["group"]: settings})


@pytest.mark.parametrize("name", NAMES)
def test_an_out_of_range_value_gives_the_tables_message(demo, name):
    entry = entry_of(name)
    value, error = out_of_range(entry)
    with pytest.raises(error) as from_core:
        _core.options_from_values({name: value})
    with pytest.raises(error) as from_loader:
        loader_with(demo, entry, value)
    assert str(from_loader.value) == str(from_core.value)
    # Named as the keyword the user wrote: "scale_range's min", "size's
    # width", never the struct's field (scale_factor, output_width).
    assert str(from_core.value).startswith(name)


@pytest.mark.parametrize("option,error,text", [
    (dict(batch_size=0), segfeed.ConfigError, "batch_size must be >= 1 (got 0)"),
    (dict(fill_mode="no-such-choice"), segfeed.ConfigError,
     "fill_mode must be one of constant, reflect (got 'no-such-choice')"),
    (dict(mean=(0.5, 0.5), std=(0.2, 0.2, 0.2)), TypeError,
     "mean must be 3 numbers, one per channel (R, G, B) (got (0.5, 0.5))"),
    (dict(contrast=(2.0, 1.0)), segfeed.ConfigError, "contrast must be an interval with min <= max (got [2, 1])"),
    (dict(scale_range=(0, 1)), segfeed.ConfigError, "scale_range's min must be in [0.05, 20] (got 0)"),
    (dict(size=(0, 48)), segfeed.ConfigError, "size's height must be in [1, 16384] (got 0)"),
    (dict(ignore_index=2.0), TypeError, "ignore_index must be an integer (got 2.0)"),
    (dict(batch_size=16.0), TypeError, "batch_size must be an integer (got 16.0)"),
    (dict(size=(32, 48.0)), TypeError, "size must be an int or (height, width) (got (32, 48.0))"),
    (dict(seed=2**70), segfeed.ConfigError, f"seed is out of range (got {2**70})"),
    (dict(size=(32, 2**64)), segfeed.ConfigError, f"size is out of range (got {2**64})"),
    (dict(batch_size=None), TypeError, "batch_size must not be None"),
    (dict(layout=object), TypeError, "layout must be a string, one of nhwc, nchw (got <class 'object'>)"),
    (dict(subset="val", no_such_option=1), segfeed.ConfigError, "unknown option 'no_such_option'"),
])
def test_spot_checks_of_the_tables_words(option, error, text):
    with pytest.raises(error) as raised:
        _core.options_from_values(option)
    assert str(raised.value) == text
    assert error is TypeError or not isinstance(raised.value, TypeError)


@pytest.mark.parametrize("given", [{7: 0, 8: 1, 9: 255}, "7:0,8:1,9:255", ["7:0", "8:1", "9:255"]])
def test_label_map_comes_back_as_the_dict_it_means(given):
    labels = dict(mask_mode="labels", num_classes=2)
    options = _core.options_from_values({**labels, "label_map": given})
    assert options["label_map"] == {7: 0, 8: 1, 9: 255}
    assert list(options["label_map"]) == [7, 8, 9]  # in the order given
    # The list form: position is the source id.
    assert _core.options_from_values({**labels, "label_map": [1, 0]})["label_map"] == {0: 1, 1: 0}
    # What comes back goes back in, to the same options.
    assert _core.options_from_values({**labels, "label_map": options["label_map"]}) == options
    assert _core.options_from_values(labels)["label_map"] is None


@pytest.mark.parametrize("given", [{(128, 0, 0): 1, (0, 0, 0): 0}, "#800000:1,#000000:0"])
def test_mask_colors_come_back_as_the_dict_they_mean(given):
    labels = dict(mask_mode="labels", num_classes=2)
    options = _core.options_from_values({**labels, "mask_colors": given})
    assert options["mask_colors"] == {(128, 0, 0): 1, (0, 0, 0): 0}
    assert _core.options_from_values({**labels, "mask_colors": options["mask_colors"]}) == options
    assert _core.options_from_values(labels)["mask_colors"] is None


def test_numpy_scalars_and_sequences_are_values(demo):
    with segfeed.Loader(demo, **{**OPTIONS, "batch_size": np.int64(3), "seed": np.uint64(2**64 - 1),
                                 "shuffle": np.bool_(True), "validation_fraction": np.float32(0.25),
                                 "mean": np.array([0.5, 0.5, 0.5]), "std": [0.25, 0.25, 0.25]}) as loader:
        options = loader.options
    assert (options["batch_size"], options["seed"], options["shuffle"]) == (3, 2**64 - 1, "global")
    assert options["validation_fraction"] == 0.25 and options["normalize"] is True
    assert options["mean"] == (0.5, 0.5, 0.5)


def test_a_keyword_the_table_does_not_have_is_a_type_error(demo):
    with pytest.raises(TypeError, match="unexpected keyword argument 'batch'"):
        segfeed.Loader(demo, batch=4)
    with pytest.raises(TypeError, match="unexpected keyword argument 'fill_mode'"):
        segfeed.Loader(demo, fill_mode="reflect")  # an Augment field, not a Loader keyword


def test_loader_options_show_the_table_names_and_the_cpp_fields(demo):
    with segfeed.Loader(demo, **OPTIONS, subset="val", augment=segfeed.Augment.geometry_only()) as loader:
        options = loader.options
    assert set(NAMES) <= set(options)
    assert options["subset"] == "validation" and options["size"] == (32, 48)
    assert (options["output_height"], options["output_width"]) == (32, 48)
    assert options["contrast"] is None and options["contrast_enabled"] is False
    assert options["normalize"] is False and options["shard_from_environment"] is False


def test_the_validation_subset_is_not_augmented_by_default(demo):
    for subset in ("validation", "val"):
        with segfeed.Loader(demo, **OPTIONS, subset=subset) as loader:
            assert loader.options["flip_lr_probability"] == 0.0 and loader.options["hue"] is None
    with segfeed.Loader(demo, **OPTIONS, subset="train") as loader:
        assert loader.options["hue"] == segfeed.Augment().hue


def test_help_and_signature_show_every_loader_option():
    text = inspect.getdoc(segfeed.Loader)
    signature = str(inspect.signature(segfeed.Loader))
    for entry in TABLE:
        if entry["group"] == "loader":
            assert f"\n    {entry['name']}: " in text
            assert f"{entry['name']}: " in signature
    assert "batch_size: int = 16" in signature and "rank: Optional[int] = None" in signature
    assert "no_augmentation" not in repr(segfeed.Augment.none) and segfeed.Augment.none().hue is None


def test_the_digest_is_the_tables(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        state = loader.state_dict()
    assert state["options_digest"] == _core.stream_options_digest(OPTIONS)
    assert state["options_digest"] != _core.stream_options_digest({**OPTIONS, "seed": 1})
    assert _core.stream_options_digest({**OPTIONS, "threads": 5, "prefetch_batches": 4}) == \
        _core.stream_options_digest(OPTIONS)
    # Options added after checkpoints were (shard_window, mask_ignore_value) have a line only off
    # their default.
    assert set(state["options"]) == {e["name"] for e in TABLE if e["in_stream"] and e["stream_line_at_default"]}
    assert [e["name"] for e in TABLE if not e["stream_line_at_default"]] == ["shard_window", "mask_ignore_value"]
    labels = dict(mask_mode="labels", num_classes=21)
    assert _core.stream_options_digest({**labels, "mask_ignore_value": 255}) == _core.stream_options_digest(labels)
    assert _core.stream_options_digest({**labels, "mask_ignore_value": 254}) != _core.stream_options_digest(labels)


def test_a_state_of_version_1_is_refused_clearly(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        state = {**loader.state_dict(), "version": 1}
        with pytest.raises(segfeed.ConfigError, match="got version 1: a state of an earlier segfeed"):
            loader.load_state_dict(state)
