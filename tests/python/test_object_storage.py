"""Shard datasets in object storage, against a real S3 server: moto in server mode on
127.0.0.1 at a free port, with its request authentication on (a wrong secret is refused
with 403, so the SigV4 signature is real). `segfeed pack`'s shards uploaded with boto3
stream the batches of the same shards read locally and of their folders: whole, by rank,
resumed, from the CLI; over a plain HTTP server too. A fault proxy between segfeed and the
server answers 503 and 500, resets connections, cuts bodies short and sends wrong bytes:
retries give the same batches; exhausted retries are a bad sample named by URL (skip) or
the stream's error (fail). No secret appears in any message or state. A rank's state
resumes at the same and at another world size as the local shards' does. The servers are
object_storage_servers.py's."""

from __future__ import annotations

import subprocess

import pytest
import segfeed

from bench_digest import batch_digest
# The servers and their fixtures (moto_server, aws_env), shared with the other object-storage tests.
from object_storage_servers import (BUCKET, Faults, SeededFaults, aws_env, fault_proxy, moto_server,  # noqa: F401
                                    pack_into_bucket, ranged_file_server, s3_client)

OPTIONS = dict(batch_size=3, size=(32, 40), seed=5, threads=2)
SECRET = "s3cr3t-Never-Printed-9f2c"


@pytest.fixture(scope="module")
def packed(cli, moto_server, tmp_path_factory):
    """A make-demo dataset, its `segfeed pack` shards (3 samples a shard) in a bucket under voc/."""
    return pack_into_bucket(cli, moto_server, tmp_path_factory.mktemp("object_storage"), "voc")


def digests(data, epochs=2, **options):
    with segfeed.Loader(data, **{**OPTIONS, **options}) as loader:
        return [batch_digest(b) for epoch in range(epochs) for b in loader.epoch(epoch)]


def test_s3_streams_the_local_shards_and_the_folders_batches(packed, aws_env):
    expected = digests(packed["demo"])
    assert digests(packed["shards"]) == expected
    assert digests(f"s3://{BUCKET}/voc/") == expected
    assert digests(f"s3://{BUCKET}/voc/index.sfidx") == expected
    with segfeed.Loader(f"s3://{BUCKET}/voc", **OPTIONS) as loader:
        key, photo, mask = loader.pairs()[0]
        assert photo == f"s3://{BUCKET}/voc/train-000000.tar:{key}.jpg"
        stats = loader.stats()
    assert stats["remote_requests"] == 0 or stats["remote_connections"] >= 1


def test_ranks_and_a_resume_stream_the_folders_batches(packed, aws_env):
    url = f"s3://{BUCKET}/voc/"
    for rank in (0, 1):
        assert digests(url, rank=rank, world_size=2) == digests(packed["demo"], rank=rank, world_size=2)
    with segfeed.Loader(url, **OPTIONS) as loader:
        it = iter(loader.epoch(1))
        next(it).release()
        state = loader.state_dict()
    with segfeed.Loader(packed["demo"], **OPTIONS) as loader:
        expected = [batch_digest(b) for b in loader.epoch(1)][1:]
    with segfeed.Loader(url, **{**OPTIONS, "threads": 1}) as loader:
        loader.load_state_dict(state)
        assert [batch_digest(b) for b in loader] == expected
    assert SECRET not in repr(state) and aws_env["secret"] not in repr(state)


def resumed_digests(data, saved_at, resumed_at):
    """A Loader at (rank, world_size) `saved_at` stops after one batch of epoch 1; one at
    `resumed_at` continues from its state_dict(): the batches of that rest."""
    rank, world_size = saved_at
    with segfeed.Loader(data, **OPTIONS, rank=rank, world_size=world_size) as loader:
        next(iter(loader.epoch(1))).release()
        state = loader.state_dict()
    rank, world_size = resumed_at
    with segfeed.Loader(data, **{**OPTIONS, "threads": 1}, rank=rank, world_size=world_size) as loader:
        loader.load_state_dict(state)
        return [batch_digest(b) for b in loader]


@pytest.mark.parametrize("saved_at, resumed_at", [((0, 2), (0, 2)), ((0, 2), (1, 2)), ((0, 2), (0, 1)),
                                                  ((0, 1), (1, 2))])
def test_a_resume_at_the_same_or_another_world_size_is_the_local_shards(packed, aws_env, saved_at, resumed_at):
    got = resumed_digests(f"s3://{BUCKET}/voc/", saved_at, resumed_at)
    assert got and got == resumed_digests(packed["shards"], saved_at, resumed_at)


def test_bench_reads_s3_with_the_local_digest_and_reports_requests(cli, packed, aws_env):
    def bench(data):
        run = subprocess.run([str(cli), "bench", "--data", data, "--epochs", "2", "--threads", "2", "--digest",
                              "--batch", "4"], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        return run.stdout
    local = bench(str(packed["shards"]))
    remote = bench(f"s3://{BUCKET}/voc/")
    digest = [line for line in local.splitlines() if line.startswith("digest ")]
    assert digest and digest == [line for line in remote.splitlines() if line.startswith("digest ")]
    assert "object storage:" in remote and "requests" in remote and "connections" in remote
    assert aws_env["secret"] not in remote


def test_the_endpoint_as_a_dataset_keyword_and_a_flag(cli, packed, aws_env, monkeypatch):
    """endpoint_url names the server where no AWS_ENDPOINT_URL does (and before one that
    names another); a local dataset or a malformed value is refused without echoing it."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # nothing listens there
    expected = digests(packed["shards"])
    assert digests(f"s3://{BUCKET}/voc/", endpoint_url=aws_env["endpoint"]) == expected
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    assert digests(f"s3://{BUCKET}/voc/", endpoint_url=aws_env["endpoint"]) == expected

    def digest_line(*args):
        run = subprocess.run([str(cli), "bench", *args, "--epochs", "2", "--threads", "2", "--digest",
                              "--batch", "4"], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        return [line for line in run.stdout.splitlines() if line.startswith("digest ")]
    assert digest_line("--data", f"s3://{BUCKET}/voc/", "--endpoint-url", aws_env["endpoint"]) == \
        digest_line("--data", str(packed["shards"]))
    with pytest.raises(segfeed.ConfigError, match="object storage"):
        segfeed.Loader(packed["shards"], endpoint_url=aws_env["endpoint"], **OPTIONS)
    with pytest.raises(segfeed.ConfigError, match="endpoint_url must be") as refused:
        segfeed.Loader(f"s3://{BUCKET}/voc/", endpoint_url="http://key:hush@127.0.0.1:1", **OPTIONS)
    assert "hush" not in str(refused.value)


def test_plan_counts_the_read_ahead(cli, packed, aws_env):
    run = subprocess.run([str(cli), "plan", "--data", f"s3://{BUCKET}/voc/", "--read-ahead-bytes", "1048576"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "read ahead       1048576 bytes" in run.stdout


def test_a_wrong_secret_is_refused_with_403_and_no_secret_in_the_message(packed, aws_env, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    with pytest.raises(segfeed.FileError) as error:
        segfeed.Loader(f"s3://{BUCKET}/voc/", **OPTIONS)
    message = str(error.value)
    assert f"access denied for s3://{BUCKET}/voc/index.sfidx" in message
    assert "check the credentials and the bucket policy" in message
    assert SECRET not in message and aws_env["secret"] not in message


def test_a_missing_index_or_shard_says_404_and_what_to_check(packed, aws_env):
    with pytest.raises(segfeed.FileError, match="no such object s3://segfeed-data/nothing/index.sfidx"):
        segfeed.Loader(f"s3://{BUCKET}/nothing/", **OPTIONS)
    s3 = s3_client(aws_env)
    for path in packed["shards"].iterdir():
        s3.upload_file(str(path), BUCKET, f"gone/{path.name}")
    s3.delete_object(Bucket=BUCKET, Key="gone/train-000001.tar")
    with segfeed.Loader(f"s3://{BUCKET}/gone/", **OPTIONS) as loader:
        with pytest.raises(segfeed.FileError, match=r"no such object s3://segfeed-data/gone/train-000001\.tar"):
            for _ in loader.epoch(0):
                pass


def test_anonymous_reads_of_a_public_http_server(packed, monkeypatch, tmp_path):
    """A plain HTTP server with Range support serves the shards' folder; nothing is signed."""
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    with ranged_file_server(packed["shards"]) as port:
        assert digests(f"http://127.0.0.1:{port}/") == digests(packed["shards"])


FAST_RETRIES = dict(remote_attempts=3, remote_connect_timeout_ms=2000, remote_stall_timeout_ms=2000)


@pytest.mark.parametrize("kind", ["503", "500", "reset", "cut", "wrong"])
def test_retries_give_the_same_batches_under_every_fault(packed, aws_env, monkeypatch, kind):
    expected = digests(packed["shards"])
    faults = Faults(kind, times=2)
    with fault_proxy(aws_env, faults) as endpoint:
        monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
        with segfeed.Loader(f"s3://{BUCKET}/voc/", **OPTIONS, **FAST_RETRIES) as loader:
            got = [batch_digest(b) for epoch in range(2) for b in loader.epoch(epoch)]
            stats = loader.stats()
    assert got == expected
    # curl itself tries a fresh connection once when a reused one dies without a reply, so
    # some resets cost no retry of ours.
    assert faults.faults > 0 and stats["remote_retries"] >= (1 if kind == "reset" else faults.faults)


def test_latency_and_seeded_faults_of_every_kind_give_the_same_batches(packed, aws_env, monkeypatch):
    """20 ms added to every answer and, by seed, 30% of the shard requests' first two attempts
    failing with one of the five kinds: the local shards' batches, nothing lost or repeated."""
    expected = digests(packed["shards"])
    faults = SeededFaults(seed=7, rate=0.3, delay_ms=20)
    with fault_proxy(aws_env, faults) as endpoint:
        monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
        assert digests(f"s3://{BUCKET}/voc/", **FAST_RETRIES) == expected
    assert faults.faults > 0


@pytest.mark.parametrize("kind", ["503", "reset", "wrong"])
def test_exhausted_retries_are_a_bad_sample_named_by_url(packed, aws_env, monkeypatch, kind):
    with fault_proxy(aws_env, Faults(kind, times=None)) as endpoint:
        monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
        with segfeed.Loader(f"s3://{BUCKET}/voc/", **OPTIONS, **FAST_RETRIES) as loader:
            with pytest.raises(segfeed.FileError) as error:
                for _ in loader.epoch(0):
                    pass
        message = str(error.value)
        assert f"s3://{BUCKET}/voc/train-0000" in message and "after 3 attempts" in message
        assert aws_env["secret"] not in message
        with segfeed.Loader(f"s3://{BUCKET}/voc/", **OPTIONS, **FAST_RETRIES, on_bad_file="skip") as loader:
            # Every pair bad: the slot gives up, saying so, instead of drawing forever.
            with pytest.raises(segfeed.FileError, match="pairs are bad"):
                for _ in loader.epoch(0):
                    pass
            skipped = loader.stats()["skipped_files"]
    assert skipped and all(f["path"].startswith(f"s3://{BUCKET}/voc/train-") for f in skipped)
    assert all("after 3 attempts" in f["detail"] for f in skipped)
    assert not any(aws_env["secret"] in f["detail"] for f in skipped)


def test_one_bad_shard_is_skipped_and_listed_the_rest_streams(packed, aws_env, monkeypatch):
    class OneShard(Faults):
        def fault_for(self, path, range_header):
            return "503" if path.endswith("train-000001.tar") else None
    with fault_proxy(aws_env, OneShard("503", None)) as endpoint:
        monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
        with segfeed.Loader(f"s3://{BUCKET}/voc/", **OPTIONS, **FAST_RETRIES, on_bad_file="skip") as loader:
            batches = sum(1 for _ in loader.epoch(0))
            stats = loader.stats()
    assert batches == 5  # 14 samples in batches of 3, the last short: replaced, batches stay full
    assert stats["samples_skipped"] == 3
    assert {f["path"].rsplit(":", 1)[0] for f in stats["skipped_files"]} == {f"s3://{BUCKET}/voc/train-000001.tar"}
    assert all("HTTP 503" in f["detail"] and "after 3 attempts" in f["detail"] for f in stats["skipped_files"])
