"""segfeed.check(): the package's own `segfeed check`, its JSON report as a dict.

The dict is compared with what the command writes with --json for the same
dataset, the page report= writes with the command's own (both read with the
parser of test_check_report.py, no browser needed), and the errors with the
command's messages and exit statuses.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest
import segfeed
import segfeed.__main__
from segfeed import _check, _core
from segfeed.__main__ import command_path

from conftest import LABEL_CLASSES, make_demo, run_python
from test_check_report import ReportDom, assert_matches_json, planted


def cli_json(cli: pathlib.Path, tmp_path: pathlib.Path, *arguments: str | bytes, name: str = "cli") -> dict:
    """What `segfeed check ARGUMENTS --json FILE` writes."""
    path = tmp_path / f"{name}.json"
    done = subprocess.run([str(cli), "check", *arguments, "--threads", "2", "--json", str(path)],
                          capture_output=True)
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
    return json.loads(path.read_text())


@pytest.fixture()
def nothing_runs(monkeypatch):
    """Fails the test if check() starts the command."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"segfeed check ran: {args}")
    monkeypatch.setattr(_check.subprocess, "run", refuse)


def test_the_package_runs_its_own_command(demo, tmp_path, monkeypatch):
    # The binary the console script runs, the one built with the module.
    assert os.access(command_path(), os.X_OK)
    done = subprocess.run([str(command_path()), "--version"], capture_output=True, text=True)
    assert done.stdout.startswith(f"segfeed {segfeed.__version__} ")
    monkeypatch.setattr(segfeed.__main__, "command_path", lambda: tmp_path / "bin" / "segfeed")
    with pytest.raises(segfeed.Error, match="the package has no segfeed command at .*/bin/segfeed"):
        segfeed.check(demo)


def test_python_m_segfeed_still_finds_its_main_unimported():
    # check() imports __main__ only when it runs, so runpy has no warning.
    done = subprocess.run([sys.executable, "-W", "error", "-m", "segfeed", "--version"], capture_output=True,
                          text=True)
    assert done.returncode == 0 and done.stdout.startswith("segfeed ") and not done.stderr, done.stderr


def test_the_dict_is_the_commands_json_for_every_problem_kind(cli, tmp_path):
    root = planted(cli, tmp_path / "planted")
    report = segfeed.check(root, threads=2)
    assert report == cli_json(cli, tmp_path, "--data", str(root))
    kinds = {problem["kind"] for problem in report["problems"]}
    assert {"missing_mask", "corrupt_image", "size_mismatch", "too_large", "duplicate_key"} <= kinds
    assert report["summary"]["problem_count"] == len(report["problems"]) > 0


def test_a_clean_dataset_and_exact_statistics(cli, tmp_path):
    root = make_demo(cli, tmp_path / "clean", 6, 64, 48)
    report = segfeed.check(str(root), threads=1, stats="exact")
    assert report["problems"] == [] and report["pairs"] == 6
    assert report == cli_json(cli, tmp_path, "--data", str(root), "--stats", "exact")


def test_python_values_reach_the_command_as_its_flags(cli, tmp_path):
    root = make_demo(cli, tmp_path / "scenes", 8, 64, 48, seed=3, classes=LABEL_CLASSES)
    names = ["void", "sky", "road", "car", "tree"]
    report = segfeed.check(root, threads=2, mask_mode="labels", num_classes=LABEL_CLASSES, class_names=names,
                           label_map={0: 0, 1: 1, 2: 2, 3: 3, 4: 4}, mask_ignore_value=255, max_pixels=10**7)
    assert report == cli_json(cli, tmp_path, "--data", str(root), "--mask-mode", "labels", "--num-classes",
                              str(LABEL_CLASSES), "--class-names", ",".join(names), "--label-map",
                              "0:0,1:1,2:2,3:3,4:4", "--mask-ignore-value", "255", "--max-pixels", "10000000")
    assert [row["name"] for row in report["summary"]["classes"]] == names
    # A dataset keyword and a text value as the command's flag takes it.
    voc = tmp_path / "voc"
    subprocess.run([str(cli), "make-demo", str(voc), "--dataset", "voc", "--count", "6", "--width", "64",
                    "--height", "48"], check=True, capture_output=True)
    report = segfeed.check(voc, dataset="voc", split="val", num_classes="21", threads=2)
    assert report == cli_json(cli, tmp_path, "--data", str(voc), "--dataset", "voc", "--split", "val",
                              name="voc")
    assert report["summary"]["classes"][15]["name"] == "person"


def test_a_folder_pair_and_a_list_of_shards(cli, tmp_path):
    root = make_demo(cli, tmp_path / "demo", 5, 64, 48)
    report = segfeed.check(images=root / "train", masks=root / "train_masks", threads=2)
    assert report["pairs"] == 5 and report["problems"] == []
    shards = tmp_path / "shards"
    subprocess.run([str(cli), "pack", "--data", str(root), "--output", str(shards), "--samples-per-shard", "2"],
                   check=True, capture_output=True)
    tars = sorted(shards.glob("*.tar"))
    assert len(tars) == 3
    report = segfeed.check(tars, threads=2)
    assert report == cli_json(cli, tmp_path, "--shards", ",".join(map(str, tars)), name="tars")
    assert report["pairs"] == 5
    # recursive=True is the command's --recursive switch; False is its absence.
    (root / "train" / "sub").mkdir()
    (root / "train_masks" / "sub").mkdir()
    image = sorted((root / "train").glob("*.jpg"))[0]
    mask = root / "train_masks" / f"{image.stem}_mask.gif"
    image.rename(root / "train" / "sub" / image.name)
    mask.rename(root / "train_masks" / "sub" / mask.name)
    flat = segfeed.check(images=root / "train", masks=root / "train_masks", recursive=False, threads=2)
    assert flat["pairs"] == 4
    nested = segfeed.check(images=root / "train", masks=root / "train_masks", recursive=True, threads=2)
    assert nested["pairs"] == 5 and nested == cli_json(cli, tmp_path, "--images", str(root / "train"), "--masks",
                                                       str(root / "train_masks"), "--recursive", name="nested")


def test_report_writes_the_commands_page(cli, tmp_path):
    root = planted(cli, tmp_path / "planted")
    page = tmp_path / "python.html"
    kept = tmp_path / "python.json"
    report = segfeed.check(root, report=page, json=kept, threads=2)
    assert json.loads(kept.read_text()) == report
    cli_page = tmp_path / "cli.html"
    subprocess.run([str(cli), "check", "--data", str(root), "--threads", "2", "--report", str(cli_page)],
                   capture_output=True)
    ours, theirs = ReportDom(page.read_text()), ReportDom(cli_page.read_text())
    assert_matches_json(report, ours)  # the dict's counts, problem rows and classes are the page's
    assert (ours.counts, ours.by_kind, ours.problem_rows) == (theirs.counts, theirs.by_kind, theirs.problem_rows)
    assert len(ours.images) == len(theirs.images) > 0
    # The command that made the page, as a person would type it again.
    assert "segfeed check --data=" in page.read_text()


def test_a_dataset_without_pairs_is_a_report_not_an_error(cli, tmp_path):
    empty = tmp_path / "empty"
    (empty / "train").mkdir(parents=True)
    (empty / "train_masks").mkdir()
    (empty / "train" / "a.bmp").write_bytes(b"BM")
    report = segfeed.check(empty)
    assert report["pairs"] == 0 and report["error"].startswith("no image/mask pairs: found 0 images")
    assert report == cli_json(cli, tmp_path, "--data", str(empty))


def test_names_that_are_not_utf8_survive(cli, tmp_path):
    root = make_demo(cli, tmp_path / "demo", 3, 64, 48)
    folder = os.fsencode(tmp_path) + b"/d\xffata"
    os.rename(root, folder)
    train = folder + b"/train/"
    os.link(train + sorted(os.listdir(train))[0], train + b"odd\xfe.jpg")
    page = os.fsencode(tmp_path) + b"/page\xff.html"
    report = segfeed.check(folder, report=page, threads=2)
    problem = next(p for p in report["problems"] if p["kind"] == "missing_mask")
    assert bytes.fromhex(problem["path_bytes_hex"]) == train + b"odd\xfe.jpg"
    assert os.path.isfile(page)
    assert report == cli_json(cli, tmp_path, b"--data", folder)


def test_a_keyword_check_does_not_take_is_refused_before_anything_runs(demo, nothing_runs):
    with pytest.raises(TypeError, match="'batch_size'"):
        segfeed.check(demo, batch_size=4)
    with pytest.raises(TypeError, match="'no_such_option'"):
        segfeed.check(demo, no_such_option=1)
    with pytest.raises(TypeError, match="threads must be an int"):
        segfeed.check(demo, threads="2")
    with pytest.raises(TypeError, match="report must be a path"):
        segfeed.check(demo, report=3)


def test_a_bad_value_is_the_tables_message_before_anything_runs(demo, nothing_runs):
    with pytest.raises(segfeed.ConfigError, match="num_classes"):
        segfeed.check(demo, mask_mode="labels", num_classes=-3)
    with pytest.raises(TypeError, match="label_map"):
        segfeed.check(demo, label_map=object())
    with pytest.raises(segfeed.ConfigError, match="masks"):  # images without masks, in keywords' words
        segfeed.check(images=demo / "train")


def test_a_switch_the_command_cannot_switch_off_is_refused(demo, nothing_runs):
    # Cityscapes' layout is recursive, and --recursive can only say yes.
    with pytest.raises(segfeed.ConfigError, match="recursive=False"):
        segfeed.check(demo, dataset="cityscapes", recursive=False)


def test_usage_errors_are_config_errors_with_the_commands_message(demo, tmp_path):
    missing = tmp_path / "missing"
    with pytest.raises(segfeed.ConfigError) as error:
        segfeed.check(missing)
    assert str(error.value) == f"--data '{missing}' is not a folder"
    with pytest.raises(segfeed.ConfigError, match=r"^--report '.*nowhere/r\.html'"):
        segfeed.check(demo, report=tmp_path / "nowhere" / "r.html")
    with pytest.raises(segfeed.ConfigError, match="^--json .*inside"):
        segfeed.check(demo, json=demo / "train" / "r.json")
    with pytest.raises(segfeed.ConfigError, match="^--stats"):
        segfeed.check(demo, stats="fast")
    with pytest.raises(segfeed.ConfigError, match="^--num-classes"):  # text goes to the command as it is
        segfeed.check(demo, mask_mode="labels", num_classes="many")


def test_unreadable_files_are_problems_in_the_report(cli, tmp_path):
    index = tmp_path / "shards" / "index.sfidx"
    index.parent.mkdir()
    index.write_bytes(b"not an index at all")
    report = segfeed.check(index)
    assert [(p["kind"], p["path"]) for p in report["problems"]] == [("io_error", str(index))]
    assert report["pairs"] == 0 and report == cli_json(cli, tmp_path, "--data", str(index))


def test_a_report_that_cannot_be_written_is_a_file_error_and_old_files_stay(demo, tmp_path):
    # Under a file size limit the command's writes fail (Python ignores
    # SIGXFSZ and check() keeps it so): first the page only, then the JSON too.
    page, kept = tmp_path / "page.html", tmp_path / "kept.json"
    page.write_text("old page")
    kept.write_text('{"pairs": 99}')
    result = run_python("""
        import resource, sys, segfeed
        for limit in (8000, 1000):
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
            try:
                segfeed.check(sys.argv[1], report=sys.argv[2], json=sys.argv[3], threads=1)
            except segfeed.FileError as error:
                print(limit, open(sys.argv[3]).read()[:40], error, sep=" | ")
    """, str(demo), str(page), str(kept))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2, result.stdout
    # 8000 bytes: the JSON (about 1.5 KB) was written, the page (about 20 KB) not.
    assert lines[0].startswith('8000 | {"pairs":10,') and str(page) in lines[0], lines[0]
    assert "File too large" in lines[0] and "segfeed check:" not in lines[0]
    # 1000 bytes: neither; the JSON there from before is not taken for this run's.
    assert lines[1].startswith('1000 | {"pairs":10,') and str(kept) in lines[1], lines[1]
    assert page.read_text() == "old page"


def test_the_keywords_are_the_commands_flags():
    # Every flag of `segfeed check --help` is a keyword of check() and back.
    text = subprocess.run([str(command_path()), "check", "--help"], capture_output=True, text=True).stdout
    flags = set(re.findall(r"^\s+(?:-h,)?--([a-z][a-z-]*)", text, re.MULTILINE)) - {"help"}
    keywords = {**{e["name"]: e["flag"] for e in _core.dataset_option_table()},
                **{e["name"]: e["flag"] for e in _check._CHECK_OPTIONS}, "threads": "threads",
                "stats": "stats", "report": "report", "json": "json", "data": "data"}
    assert flags == set(keywords.values())
    assert set(keywords) <= set(_check.inspect.signature(segfeed.check).parameters)
