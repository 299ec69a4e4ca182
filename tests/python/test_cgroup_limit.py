"""The container's memory limit: `segfeed bench` in a child cgroup completes under a limit above its plan and
what the process already holds, and under one below the plan it is refused with a message before the pool
is allocated, instead of being OOM-killed mid-epoch.

Needs permission to make a child memory cgroup (root on cgroup v1, or a delegated v2 subtree); skips with
the reason elsewhere."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import time

import pytest

from conftest import make_demo

MiB = 1 << 20
CGROUP_ROOT = pathlib.Path("/sys/fs/cgroup")


def own_memory_cgroup() -> tuple[int, pathlib.Path]:
    """The cgroup version and folder of this process's memory cgroup; skips where there is none."""
    try:
        lines = pathlib.Path("/proc/self/cgroup").read_text().splitlines()
    except OSError as e:
        pytest.skip(f"no /proc/self/cgroup ({e})")
    entries = [line.split(":", 2) for line in lines if line.count(":") >= 2]
    for _, controllers, path in entries:
        if "memory" in controllers.split(","):
            mount = CGROUP_ROOT / "memory"
            folder = mount / path.lstrip("/")
            # A namespaced container names a path its mount does not show: the mount is its cgroup.
            return 1, folder if folder.is_dir() else mount
    for hierarchy, controllers, path in entries:
        if hierarchy == "0" and not controllers:
            folder = CGROUP_ROOT / path.lstrip("/")
            return 2, folder if folder.is_dir() else CGROUP_ROOT
    pytest.skip("no memory cgroup in /proc/self/cgroup")


class ChildCgroup:
    """A child memory cgroup of this process's own, removed on close (its processes moved out first)."""

    def __init__(self, name: str):
        self.version, self.parent = own_memory_cgroup()
        self.path = self.parent / f"segfeed-test-{os.getpid()}-{name}"
        try:
            self.path.mkdir()
        except OSError as e:
            pytest.skip(f"cannot make a child cgroup in {self.parent} (cgroup v{self.version}): {e}")
        self.limit_file = self.path / ("memory.limit_in_bytes" if self.version == 1 else "memory.max")
        if not self.limit_file.exists():
            self.close()
            pytest.skip(f"the memory controller is not enabled for child cgroups of {self.parent}")

    def set_limit(self, limit_bytes: int) -> None:
        self.limit_file.write_text(str(limit_bytes))

    def run(self, *command: str, timeout: float = 120) -> tuple[subprocess.CompletedProcess, float]:
        """Runs `command` inside the cgroup (the shell moves itself in, then execs); the process and seconds."""
        started = time.monotonic()
        done = subprocess.run(["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.path / "cgroup.procs"),
                               *command], capture_output=True, text=True, timeout=timeout)
        return done, time.monotonic() - started

    def peak_bytes(self) -> int | None:
        """The most memory charged to the cgroup so far, where the kernel reports it."""
        peak = self.path / ("memory.max_usage_in_bytes" if self.version == 1 else "memory.peak")
        return int(peak.read_text()) if peak.exists() else None

    def oom_kills(self) -> int:
        events = self.path / ("memory.oom_control" if self.version == 1 else "memory.events")
        for line in events.read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def close(self) -> None:
        if not self.path.exists():
            return
        procs = self.path / "cgroup.procs"
        for pid in procs.read_text().split():
            try:
                (self.parent / "cgroup.procs").write_text(pid)
            except OSError:
                pass  # exited meanwhile
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except OSError:
                time.sleep(0.1)  # a process that just exited is still being torn down
        self.path.rmdir()

    def __enter__(self) -> "ChildCgroup":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@pytest.fixture(scope="module")
def dataset(cli, tmp_path_factory) -> pathlib.Path:
    """32 pairs of 480x320: two batches of the default 16, planned at the default 512x512 float32."""
    return make_demo(cli, tmp_path_factory.mktemp("cgroup") / "data", 32, 480, 320)


def test_bench_fits_a_limit_above_the_plan_and_is_refused_under_one_below(cli, dataset, tmp_path):
    own_memory_cgroup()  # skips first where there is no memory cgroup at all
    report = tmp_path / "plan.json"
    subprocess.run([str(cli), "plan", "--data", str(dataset), "--json", str(report)], check=True,
                   capture_output=True)
    plan = json.loads(report.read_text())
    total, pool = plan["total_bytes"], plan["pool_bytes"]

    # What the process holds at the check, before the plan: plan's report from inside a cgroup with
    # a large limit (the same binary, libraries, listing and header reads as bench's).
    with ChildCgroup("baseline") as cgroup:
        cgroup.set_limit(4096 * MiB)
        inside = tmp_path / "inside.json"
        done, _ = cgroup.run(str(cli), "plan", "--data", str(dataset), "--json", str(inside))
        assert done.returncode == 0, done.stderr
        container = json.loads(inside.read_text())["container_memory_limit"]
        assert container["cgroup_version"] == cgroup.version
        assert container["limit_bytes"] == 4096 * MiB
        assert container["limit_file"] == str(cgroup.limit_file)
        assert "  container " in done.stdout and str(cgroup.limit_file) in done.stdout, done.stdout
        baseline = container["in_use_bytes"]
    assert 0 < baseline < 64 * MiB

    # Just above: completes.
    fits = total + baseline + 8 * MiB
    with ChildCgroup("fits") as cgroup:
        cgroup.set_limit(fits)
        done, seconds = cgroup.run(str(cli), "bench", "--data", str(dataset), "--epochs", "1")
        peak = cgroup.peak_bytes()
        print(f"plan {total / MiB:.1f} MiB (pool {pool / MiB:.1f}), baseline {baseline / MiB:.1f} MiB; "
              f"limit {fits / MiB:.1f} MiB: exit {done.returncode} in {seconds:.2f} s, "
              f"peak {peak and peak / MiB:.1f} MiB")
        assert done.returncode == 0, done.stderr
        assert cgroup.oom_kills() == 0

    # Below the plan and below the pool (the 100 MiB): refused at once, and not by the OOM killer.
    refused = 100 * MiB
    assert baseline + 16 * MiB < refused < pool
    with ChildCgroup("refused") as cgroup:
        cgroup.set_limit(refused)
        done, seconds = cgroup.run(str(cli), "bench", "--data", str(dataset), "--epochs", "1")
        peak = cgroup.peak_bytes()
        print(f"limit {refused / MiB:.1f} MiB: exit {done.returncode} in {seconds:.2f} s, "
              f"peak {peak and peak / MiB:.1f} MiB: {done.stderr.strip()}")
        assert done.returncode == 1, (done.returncode, done.stderr)
        assert cgroup.oom_kills() == 0
        assert f"the memory plan needs {total} bytes" in done.stderr, done.stderr
        assert "left under the container's memory limit" in done.stderr, done.stderr
        assert f"cgroup v{cgroup.version} limit {refused} bytes (100.0 MiB) in {cgroup.limit_file}" in done.stderr
        assert "lower batch_size, prefetch_batches, the output size or threads" in done.stderr
        assert seconds < 10
        if peak is not None:
            assert peak < pool, "the pool was allocated before the refusal"
