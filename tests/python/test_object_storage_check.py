"""`segfeed check --data s3://...` and segfeed.check() over object storage, against moto
(object_storage_servers.py): a clean bucket is clean with the local shards' counts, a shard
missing from the bucket is a problem named by its URL, and the object-storage flags are
check's as they are bench's."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess

import pytest
import segfeed

from object_storage_servers import BUCKET, aws_env, moto_server, pack_into_bucket, s3_client  # noqa: F401


@pytest.fixture(scope="module")
def packed(cli, moto_server, tmp_path_factory):
    return pack_into_bucket(cli, moto_server, tmp_path_factory.mktemp("object_storage_check"), "check", count=8)


def check(cli: pathlib.Path, tmp_path: pathlib.Path, data: str, *flags: str):
    """`segfeed check --data DATA FLAGS --json FILE`: the run and its JSON report."""
    report = tmp_path / "report.json"
    run = subprocess.run([str(cli), "check", "--data", data, "--threads", "2", "--json", str(report), *flags],
                         capture_output=True, text=True, timeout=120)
    return run, (json.loads(report.read_text()) if report.exists() else None)


def test_a_clean_bucket_checks_clean_with_the_local_shards_counts(cli, packed, aws_env, tmp_path):
    run, remote = check(cli, tmp_path, f"s3://{BUCKET}/check/", "--remote-attempts", "2")
    assert run.returncode == 0, run.stdout + run.stderr
    assert remote["pairs"] == 8 and remote["problems"] == []
    local_run, local = check(cli, tmp_path, str(packed["shards"]))
    assert local_run.returncode == 0, local_run.stderr
    # The same files, decoded the same: the summary's numbers are the local shards'.
    for field in ("pairs", "problem_count", "problems_by_kind", "image_sizes", "mask_sizes", "jpeg", "channel_stats",
                  "mask_foreground_fraction", "mask_bit_depths", "duplicates"):
        assert remote["summary"][field] == local["summary"][field], field
    assert "clean: 0 problems in 8 pairs" in run.stdout, run.stdout
    # The read-ahead is in the memory the report promises, for a bucket only.
    assert remote["summary"]["read_ahead_bytes"] == 64 << 20 and local["summary"]["read_ahead_bytes"] == 0
    assert "read ahead       64.0 MiB at most, shared by the threads" in run.stdout, run.stdout
    assert f"the samples of the index s3://{BUCKET}/check/index.sfidx" in run.stdout
    assert aws_env["secret"] not in run.stdout + run.stderr


def test_a_shard_missing_from_the_bucket_is_listed_by_its_url(cli, packed, aws_env, tmp_path):
    s3 = s3_client(aws_env)
    for path in packed["shards"].iterdir():
        s3.upload_file(str(path), BUCKET, f"check-gone/{path.name}")
    s3.delete_object(Bucket=BUCKET, Key="check-gone/train-000001.tar")
    run, report = check(cli, tmp_path, f"s3://{BUCKET}/check-gone/", "--remote-attempts", "2")
    assert run.returncode == 1, run.stdout + run.stderr
    gone = f"s3://{BUCKET}/check-gone/train-000001.tar"
    assert report["problems"], report
    # Each member of the missing shard is a problem naming the object, and only those.
    assert all(p["path"].startswith(gone) for p in report["problems"]), report["problems"]
    assert all(f"no such object {gone}" in p["detail"] for p in report["problems"]), report["problems"]
    assert f"no such object {gone}" in run.stdout and "NOT CLEAN: 6 problems in 8 pairs" in run.stdout


def test_the_object_storage_flags_are_checks_as_they_are_benchs(cli):
    def flags(command):
        """The flags whose help (its first line and those that continue it) says object storage."""
        text = subprocess.run([str(cli), command, "--help"], capture_output=True, text=True).stdout
        entries = re.split(r"\n(?=  --)", text)
        return {entry.split()[0].rstrip(",") for entry in entries[1:] if "object storage:" in entry}
    assert flags("check") == flags("bench") and "--no-sign-request" in flags("check")
    bad = subprocess.run([str(cli), "check", "--data", f"s3://{BUCKET}/check/", "--remote-attempts", "0"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--remote-attempts" in bad.stderr, bad.stderr


def test_python_check_takes_the_object_storage_keywords(packed, aws_env, tmp_path, cli):
    report = segfeed.check(f"s3://{BUCKET}/check/", threads=2, remote_attempts=2, remote_connections=4)
    assert report["pairs"] == 8 and report["problems"] == []
    _, cli_report = check(cli, tmp_path, f"s3://{BUCKET}/check/", "--remote-attempts", "2",
                          "--remote-connections", "4")
    assert report == cli_report
    with pytest.raises(segfeed.ConfigError, match="remote.attempts"):
        segfeed.check(f"s3://{BUCKET}/check/", remote_attempts=0)
    # Unsigned, moto (authentication on) refuses even the index: a report without a pair.
    unsigned = segfeed.check(f"s3://{BUCKET}/check/", threads=2, no_sign_request=True)
    assert unsigned["pairs"] == 0
    assert [p["path"] for p in unsigned["problems"]] == [f"s3://{BUCKET}/check/index.sfidx"], unsigned
    assert "access denied" in unsigned["problems"][0]["detail"]
