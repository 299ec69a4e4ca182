"""The local cache of a dataset in object storage (cache_dir, cache_limit), against moto's
S3 in server mode on 127.0.0.1 at a free port: what was fetched once is read from the
cache without a request, a limit below one sample keeps nothing and still streams, damaged
entries are fetched again, two ranks in two processes share one folder within its limit,
and a local dataset refuses a cache. Every stream is the local shards' own."""

from __future__ import annotations

import multiprocessing
import re
import subprocess

import pytest
import segfeed

from bench_digest import batch_digest

# The servers and their fixtures (moto_server, aws_env), shared with the other object-storage tests.
from object_storage_servers import aws_env, moto_server, pack_into_bucket  # noqa: F401

OPTIONS = dict(batch_size=3, size=(32, 40), seed=5, threads=2)
BUCKET = "segfeed-cache"
URL = f"s3://{BUCKET}/voc/"


@pytest.fixture(scope="module")
def packed(cli, moto_server, tmp_path_factory):
    """A make-demo dataset's `segfeed pack` shards (3 samples a shard), in a bucket under voc/."""
    return pack_into_bucket(cli, moto_server, tmp_path_factory.mktemp("object_storage_cache"), "voc",
                            bucket=BUCKET)


def stream(data, epochs=2, **options):
    """The batches' digests over `epochs` epochs, and the loader's stats after each epoch."""
    digests, stats = [], []
    with segfeed.Loader(data, **{**OPTIONS, **options}) as loader:
        for epoch in range(epochs):
            digests += [batch_digest(b) for b in loader.epoch(epoch)]
            stats.append(loader.stats())
    return digests, stats


def entries(cache):
    """The cache's entries (<digest>-<size> files in its subfolders) and their sizes."""
    return {path.name: path.stat().st_size for path in cache.glob("*/*") if not path.name.startswith(".tmp")}


def test_what_was_fetched_once_is_read_from_the_cache_without_a_request(packed, aws_env, tmp_path):
    expected, _ = stream(packed["shards"])
    cache = tmp_path / "cache"
    first, stats = stream(URL, cache_dir=cache)
    assert first == expected
    # By the end of the first epoch every member (14 pairs) was looked up in vain once,
    # fetched and kept; the second epoch read each from the cache and made no request.
    assert stats[0]["cache_misses"] == 28 and len(entries(cache)) == 28
    assert stats[0]["cache_bytes_held"] == sum(entries(cache).values()) > 0
    assert stats[1]["remote_requests"] == stats[0]["remote_requests"]
    assert stats[1]["cache_misses"] == 28 and stats[1]["cache_hits"] == stats[0]["cache_hits"] + 28
    assert stats[1]["cache_evictions"] == 0 and stats[1]["cache_failures"] == 0
    # A second loader over the folder (a pathlib.Path): the index's GET alone.
    again, stats = stream(URL, cache_dir=cache)
    assert again == expected
    assert stats[1]["remote_requests"] <= 1
    assert stats[1]["cache_hits"] >= 56 and stats[1]["cache_misses"] == 0


def test_a_limit_below_one_sample_keeps_nothing_and_streams_the_same(packed, aws_env, tmp_path):
    expected, _ = stream(packed["shards"])
    cache = tmp_path / "cache"
    # pack keeps the files' bytes: no member is smaller than the smallest file.
    smallest = min(path.stat().st_size for path in packed["demo"].rglob("*") if path.is_file())
    got, stats = stream(URL, cache_dir=str(cache), cache_limit=smallest - 1)
    assert got == expected
    assert entries(cache) == {} and not list(cache.glob("*/.tmp*"))
    assert stats[1]["cache_hits"] == 0 and stats[1]["cache_bytes_held"] == 0
    # Every epoch fetches again.
    assert stats[1]["remote_requests"] > stats[0]["remote_requests"]


def test_a_damaged_entry_is_found_fetched_again_and_counted(packed, aws_env, tmp_path):
    expected, _ = stream(packed["shards"], epochs=1)
    cache = tmp_path / "cache"
    assert stream(URL, epochs=1, cache_dir=cache)[0] == expected
    kept = sorted(path for path in cache.glob("*/*") if not path.name.startswith(".tmp"))
    flipped, truncated = kept[0], kept[1]
    data = bytearray(flipped.read_bytes())
    data[len(data) // 2] ^= 0x01
    flipped.write_bytes(bytes(data))
    truncated.write_bytes(truncated.read_bytes()[:-7])
    got, stats = stream(URL, epochs=1, cache_dir=cache)
    assert got == expected
    assert stats[0]["cache_corrupt"] == 2 and stats[0]["cache_misses"] == 2
    assert stats[0]["remote_requests"] > 1  # the index, and the damaged members' samples
    # Fetched again and kept whole: the next loader reads everything from the cache.
    _, stats = stream(URL, epochs=1, cache_dir=cache)
    assert stats[0]["cache_misses"] == 0 and stats[0]["cache_corrupt"] == 0
    assert stats[0]["remote_requests"] <= 1


def rank_stream(rank, cache, limit, results):
    """One rank of two in its own process, its loader opening the shared cache folder."""
    got, stats = stream(URL, epochs=3, cache_dir=str(cache), cache_limit=limit, rank=rank, world_size=2)
    results.put((rank, got, stats[-1]))


def test_two_ranks_in_two_processes_share_one_folder_within_its_limit(packed, aws_env, tmp_path):
    expected = {rank: stream(packed["shards"], epochs=3, rank=rank, world_size=2)[0] for rank in (0, 1)}
    cache = tmp_path / "cache"
    members = [path.stat().st_size for path in packed["demo"].rglob("*") if path.is_file()]
    limit = sum(members) // 2
    context = multiprocessing.get_context("spawn")  # a fresh process: no loader inherited
    results = context.Queue()
    ranks = [context.Process(target=rank_stream, args=(rank, cache, limit, results)) for rank in (0, 1)]
    for process in ranks:
        process.start()
    got = dict((rank, (digests, stats)) for rank, digests, stats in (results.get(timeout=300) for _ in ranks))
    for process in ranks:
        process.join(timeout=60)
        assert process.exitcode == 0
    for rank in (0, 1):
        assert got[rank][0] == expected[rank]
        assert got[rank][1]["cache_hits"] > 0
    assert sum(got[rank][1]["cache_evictions"] for rank in (0, 1)) > 0
    # Every file in the folder, the ledger aside: the entries within the limit and no
    # temporary file left behind (the slack the cache documents is for writes in progress).
    on_disk = [path for path in cache.rglob("*") if path.is_file() and path.name != "ledger"]
    assert not [path for path in on_disk if path.name.startswith(".tmp")]
    assert 0 < sum(path.stat().st_size for path in on_disk) <= limit


def test_the_cli_takes_the_cache_flags_and_bench_reports_the_cache(cli, packed, aws_env, tmp_path):
    def bench(*flags):
        run = subprocess.run([str(cli), "bench", "--data", URL, "--epochs", "2", "--threads", "2", "--digest",
                              "--batch", "4", *flags], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        return run.stdout
    plain = bench()
    cold = bench("--cache-dir", str(tmp_path / "cache"), "--cache-limit", "1MiB")
    warm = bench("--cache-dir", str(tmp_path / "cache"), "--cache-limit", "1MiB")
    tiny = bench("--cache-dir", str(tmp_path / "tiny"), "--cache-limit", "100B")
    digest = [line for line in plain.splitlines() if line.startswith("digest ")]
    for run in (cold, warm, tiny):
        assert digest and digest == [line for line in run.splitlines() if line.startswith("digest ")]
    assert "cache:" not in plain
    assert re.search(r"^  cache: \d+ members read from it, 28 fetched \(0 found damaged in it\), 0 evicted, "
                     r"[\d.]+ MiB held, 0 failed writes$", cold, re.M), cold
    assert re.search(r"^  cache: \d+ members read from it, 0 fetched", warm, re.M), warm
    # Warm, the Loader makes no request at all (the index was fetched with the spec).
    assert "object storage:" not in warm, warm
    assert re.search(r"^  cache: 0 members read from it, \d+ fetched .* 0.0 MiB held", tiny, re.M), tiny


def test_a_cache_dir_on_a_local_dataset_is_a_config_error(packed, tmp_path):
    for local in (packed["demo"], packed["shards"]):
        with pytest.raises(segfeed.ConfigError, match="cache_dir applies to datasets in object storage"):
            segfeed.Loader(local, cache_dir=tmp_path / "cache", **OPTIONS)
    assert not (tmp_path / "cache").exists()
