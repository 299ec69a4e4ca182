"""One name per field: the dicts of Loader.stats(), Loader.plan() and Batch.params have the C++
field lists' keys (ForEachField, which _core.report_fields() gives), and so have the JSON reports of
`segfeed bench`, `segfeed plan` and `segfeed preview --dump` on the same dataset."""

import json
import subprocess

import segfeed
from segfeed import _core

# The same loader in Python and on the command line.
OPTIONS = dict(batch_size=4, size=(48, 48), threads=2, prefetch_batches=2)
FLAGS = ["--batch", "4", "--size", "48", "--threads", "2", "--prefetch", "2"]


def field_names(record: str) -> list:
    return [name for name, _ in _core.report_fields()[record]]


def side_by_side(keys: list, names: list) -> bool:
    """Whether `names` appear in `keys` in their order with nothing between them."""
    return any(keys[i:i + len(names)] == names for i in range(len(keys) - len(names) + 1))


def run(cli, *args: str) -> None:
    subprocess.run([str(cli), *args], check=True, capture_output=True)


def test_report_fields_are_the_stub_typed_dicts():
    assert list(_core.report_fields()) == ["FileProblem", "StageSeconds", "LoaderStats", "MemoryPlan", "Affine2x3",
                                           "AugmentParams"]
    assert field_names("FileProblem") == ["path", "kind", "detail", "message"]
    assert ("skipped_files", "List[FileProblem]") in _core.report_fields()["LoaderStats"]
    assert ("samples_loaded", "int") in _core.report_fields()["LoaderStats"]
    assert ("listing_bytes", "int") in _core.report_fields()["MemoryPlan"]


def test_stats_has_the_keys_of_the_bench_report(cli, demo, tmp_path):
    report = tmp_path / "bench.json"
    run(cli, "bench", "--data", str(demo), "--epochs", "1", *FLAGS, "--json", str(report))
    bench = json.loads(report.read_text())
    with segfeed.Loader(demo, **OPTIONS) as loader:
        for batch in loader:
            batch.release()
        stats = loader.stats()
    assert list(stats) == field_names("LoaderStats")
    assert side_by_side(list(bench), list(stats)), list(bench)
    assert list(stats["stage_seconds"]) == list(bench["stage_seconds"]) == field_names("StageSeconds")
    for name in ("samples_loaded", "samples_skipped", "samples_replaced", "batches_delivered", "input_bytes",
                 "pool_bytes", "pool_buffers", "threads", "in_flight_bound"):
        assert stats[name] == bench[name], name


def test_plan_has_the_keys_and_values_of_the_plan_report(cli, demo, tmp_path):
    report = tmp_path / "plan.json"
    run(cli, "plan", "--data", str(demo), *FLAGS, "--json", str(report))
    planned = json.loads(report.read_text())
    with segfeed.Loader(demo, **OPTIONS) as loader:
        plan = loader.plan()
    assert list(plan) == field_names("MemoryPlan")
    assert plan["listing_bytes"] > 0
    assert side_by_side(list(planned), list(plan)), list(planned)
    assert {name: planned[name] for name in plan} == plan


def test_batch_params_have_the_keys_of_the_preview_dump(cli, demo, tmp_path):
    run(cli, "preview", "--data", str(demo), "--dump", str(tmp_path / "dump"), "--count", "2", *FLAGS)
    samples = json.loads((tmp_path / "dump" / "params.json").read_text())["samples"]
    with segfeed.Loader(demo, **OPTIONS) as loader:
        with next(iter(loader)) as batch:
            params = batch.params
    assert list(params[0]) == field_names("AugmentParams")
    assert list(samples[0])[:5] == ["index", "sample_id", "stem", "image", "mask"]
    assert list(samples[0])[5:] == list(params[0])


def test_a_files_problem_has_the_keys_of_the_bench_report(cli, demo_copy, tmp_path):
    # Error's one field list: the JSON's problems carry the message Python's dicts always had.
    image = sorted((demo_copy / "train").iterdir())[3]
    image.write_bytes(image.read_bytes()[:300])
    report = tmp_path / "bench.json"
    run(cli, "bench", "--data", str(demo_copy), "--epochs", "1", "--on-error", "skip", *FLAGS,
        "--json", str(report))
    bench = json.loads(report.read_text())["skipped_files"]
    with segfeed.Loader(demo_copy, on_bad_file="skip", **OPTIONS) as loader:
        for batch in loader:
            batch.release()
        skipped = loader.stats()["skipped_files"]
    assert [list(problem) for problem in skipped] == [list(problem) for problem in bench] == \
        [field_names("FileProblem")]
    assert skipped == bench
    assert skipped[0]["message"] == f"{image}: {skipped[0]['detail']} [corrupt_image]"
