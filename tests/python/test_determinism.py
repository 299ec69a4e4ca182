"""The same seed gives the same batches for any thread count and prefetch depth, and
the same digest as `segfeed bench --digest`."""

import re
import subprocess

import pytest
import segfeed

from bench_digest import stream_digest

EPOCHS = 2


def python_digest(demo, **options):
    with segfeed.Loader(demo, batch_size=4, size=(32, 48), seed=7, **options) as loader:
        return stream_digest(batch for epoch in range(EPOCHS) for batch in loader.epoch(epoch))


@pytest.mark.parametrize("dtype,layout", [("float32", "nhwc"), ("uint8", "nchw")])
def test_digest_is_the_same_for_threads_and_prefetch_and_equals_bench(demo, cli, dtype, layout):
    digests = {(threads, prefetch): python_digest(demo, threads=threads, prefetch_batches=prefetch,
                                                  image_dtype=dtype, layout=layout)
               for threads, prefetch in ((1, 2), (2, 2), (2, 3))}
    assert len(set(digests.values())) == 1, digests
    bench = subprocess.run([str(cli), "bench", "--data", str(demo), "--batch", "4", "--size", "48x32", "--seed", "7",
                            "--threads", "2", "--prefetch", "2", "--dtype", dtype, "--layout", layout,
                            "--epochs", str(EPOCHS), "--digest"], capture_output=True, text=True, check=True)
    bench_digest = re.search(r"^digest ([0-9a-f]{16})$", bench.stdout, re.M).group(1)
    assert digests[(2, 2)] == bench_digest


def test_other_seed_gives_other_batches(demo):
    with segfeed.Loader(demo, batch_size=4, size=(32, 48), seed=8, threads=2) as loader:
        other = stream_digest(batch for epoch in range(EPOCHS) for batch in loader.epoch(epoch))
    assert other != python_digest(demo, threads=2)


def test_no_augment_matches_bench_no_augment(demo, cli):
    ours = python_digest(demo, threads=2, augment=segfeed.Augment.none(), shuffle=False)
    bench = subprocess.run([str(cli), "bench", "--data", str(demo), "--batch", "4", "--size", "48x32", "--seed", "7",
                            "--no-augment", "--no-shuffle", "--epochs", str(EPOCHS), "--digest"],
                           capture_output=True, text=True, check=True)
    assert ours == re.search(r"^digest ([0-9a-f]{16})$", bench.stdout, re.M).group(1)
