"""load_state_dict() reads every field the way LoaderState::Parse() reads the text form.

Each field of a state_dict is swept at the edges of the integer types it
could be read into (0, -1, 2**31, 2**63, 2**64), with values of another type
(a float, a str, None, a bool) and without it: a value is accepted only when
it lies in the field's range, and is otherwise refused with a ConfigError
that names the field and its range. world_size 0 used to kill the
interpreter (SIGFPE, a division by zero), so the sweep runs in a child
interpreter that reports each case before the next: a crash fails the cases
it reached, and the suite goes on.
"""

from __future__ import annotations

import json

import pytest
import segfeed

from conftest import run_python

OPTIONS = dict(batch_size=2, size=(32, 48), seed=3, threads=1)

# Each integer field and its range, as the messages say it.
RANGES = {
    "epoch": (0, 2**63 - 2),
    "next_batch": (0, 2**63 - 1),
    "seed": (0, 2**64 - 1),
    "rank": (0, 2**31 - 1),
    "world_size": (1, 2**31 - 1),
    "shard_start": (0, 2**63 - 1),
    "global_position": (0, 2**63 - 1),
    "batches_per_epoch": (0, 2**63 - 1),
}
VALUES = {"0": 0, "1": 1, "-1": -1, "2**31": 2**31, "2**63": 2**63, "2**64": 2**64,
          "-2**63-1": -2**63 - 1, "float": 1.5, "str": "1", "None": None, "bool": True}
MISSING = "missing"
CASES = [(key, label) for key in [*RANGES, "version", "known_bad", "options_digest", "listing_digest"]
         for label in [*VALUES, MISSING]]

# Runs in a fresh interpreter: argv = dataset. Prints one JSON line a case,
# flushed before the next case, so that a crash shows which case it was.
SWEEP = """
    import json, sys
    import segfeed
    VALUES = {values}
    with segfeed.Loader(sys.argv[1], **{options!r}) as loader:
        state = loader.state_dict()
        for key, label in {cases!r}:
            edited = dict(state)
            if label == "missing":
                del edited[key]
            elif key == "known_bad":
                edited[key] = [[VALUES[label], "io_error"]]
            else:
                edited[key] = VALUES[label]
            print(json.dumps([key, label]), end=" ", flush=True)
            try:
                loader.load_state_dict(edited)
                outcome = "accepted"
            except segfeed.ConfigError as e:
                outcome = "ConfigError: " + str(e)
            except Exception as e:
                outcome = type(e).__name__ + ": " + str(e)
            print(json.dumps(outcome), flush=True)
"""


@pytest.fixture(scope="module")
def outcomes(demo):
    values = "{" + ", ".join(f"{label!r}: {value!r}" for label, value in VALUES.items()) + "}"
    child = run_python(SWEEP.format(values=values, options=OPTIONS, cases=CASES), str(demo), timeout=120)
    got = {}
    for line in child.stdout.splitlines():
        case, _, outcome = line.partition("] ")
        if outcome:
            got[tuple(json.loads(case + "]"))] = json.loads(outcome)
    return got, child


def in_range(key, value):
    low, high = RANGES[key]
    return type(value) is int and low <= value <= high


def expected(key, label):
    """The message a case must give, None where a message naming the field will do, or "accepted"."""
    value = VALUES.get(label)
    if label == MISSING:
        return "accepted" if key == "known_bad" else f"ConfigError: state_dict: no {key}"
    if key in RANGES:
        low, high = RANGES[key]
        if type(value) is not int:
            return f"ConfigError: state_dict: {key} must be an integer in [{low}, {high}] (got {value!r})"
        if not in_range(key, value):
            return f"ConfigError: state_dict: {key} must be in [{low}, {high}] (got {value})"
        return None  # in its range: accepted, or refused for what it says of the loader
    if key == "version":
        if type(value) is not int:
            return f"ConfigError: state_dict: version must be an integer (got {value!r})"
        return f"ConfigError: not a segfeed loader state of version 2 to 3 (got version {value}"
    if key == "known_bad":
        if type(value) is not int:
            return (f"ConfigError: state_dict: known_bad must be a list of [pair id, error kind] "
                    f"(got [[{value!r}, 'io_error']])")
        if not 0 <= value < 2**32:
            return f"ConfigError: state_dict: known_bad pair id must be in [0, 4294967295] (got {value})"
        # A fail loader skips no pair: its state never lists one.
        return "ConfigError: the state's known_bad lists 1 pair(s), but its on_bad_file is 'fail'"
    shown = repr(value) if isinstance(value, str) else str(value)
    return f"ConfigError: state_dict: {key} must be 16 hex digits (got {shown})"


@pytest.mark.parametrize("key,label", CASES, ids=[f"{key}={label}" for key, label in CASES])
def test_a_field_outside_its_range_or_of_another_type_is_refused_naming_it(outcomes, key, label):
    got, child = outcomes
    if (key, label) not in got:
        pytest.fail(f"the child interpreter ended (status {child.returncode}) before this case: "
                    f"{child.stdout[-300:]}{child.stderr[-300:]}")
    outcome = got[(key, label)]
    want = expected(key, label)
    if want is None:
        assert outcome == "accepted" or (outcome.startswith("ConfigError: ") and key in outcome), outcome
    else:
        assert outcome.startswith(want), outcome


def test_the_sweep_covered_every_field_of_a_state_dict(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        keys = set(loader.state_dict())
    assert keys == {*RANGES, "version", "known_bad", "options_digest", "listing_digest", "options"}


def test_world_size_and_rank_of_2_to_the_31_say_the_range(demo):
    # They said "must be an int", as if 2**31 were not one.
    with segfeed.Loader(demo, **OPTIONS) as loader:
        state = loader.state_dict()
        with pytest.raises(segfeed.ConfigError,
                           match=r"^state_dict: world_size must be in \[1, 2147483647\] \(got 2147483648\)$"):
            loader.load_state_dict({**state, "world_size": 2**31})
        with pytest.raises(segfeed.ConfigError,
                           match=r"^state_dict: rank must be in \[0, 2147483647\] \(got 2147483648\)$"):
            loader.load_state_dict({**state, "rank": 2**31})
        with pytest.raises(segfeed.ConfigError, match=r"^state_dict: rank must be in \[0, world_size 2\) \(got 2\)$"):
            loader.load_state_dict({**state, "rank": 2, "world_size": 2})


def test_an_edited_seed_or_known_bad_in_a_fail_loader_is_refused_naming_it(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        state = loader.state_dict()
        with pytest.raises(segfeed.ConfigError, match=r"the state's seed 4 is not the seed its options_digest "
                                                      r"stands for \(3\): it was edited"):
            loader.load_state_dict({**state, "seed": 4})
        with pytest.raises(segfeed.ConfigError, match=r"the state's known_bad lists 1 pair\(s\), but its "
                                                      r"on_bad_file is 'fail', which skips none"):
            loader.load_state_dict({**state, "known_bad": [[1, "corrupt_image"]]})
        with pytest.raises(segfeed.ConfigError, match=r"^state_dict: known_bad lists pair 1 twice$"):
            loader.load_state_dict({**state, "known_bad": [[1, "corrupt_image"], [1, "io_error"]]})
        with pytest.raises(segfeed.ConfigError, match=r"^state_dict: unknown field colour \(in a version 3 state\)$"):
            loader.load_state_dict({**state, "colour": "blue"})
        with pytest.raises(segfeed.ConfigError, match=r"^state_dict: options must be a dict of option names"):
            loader.load_state_dict({**state, "options": {"batch_size": 2}})
        loader.load_state_dict(state)  # as it was: accepted


def test_numpy_integers_are_ints_and_numpy_bools_are_not(demo):
    # A state passed through NumPy (a checkpoint of arrays) keeps its ints.
    np = pytest.importorskip("numpy")
    with segfeed.Loader(demo, **OPTIONS) as loader:
        state = loader.state_dict()
        loader.load_state_dict({**state, "epoch": np.int64(2), "world_size": np.int32(1)})
        assert loader.state_dict()["epoch"] == 2
        # NumPy 2 shows its bool as np.True_, NumPy 1 as True.
        with pytest.raises(segfeed.ConfigError,
                           match=r"^state_dict: world_size must be an integer in \[1, 2147483647\] \(got (True|np\.True_)\)$"):
            loader.load_state_dict({**state, "world_size": np.True_})
