"""The installed package: one native file, stubs, no framework needed to import."""

import pathlib

import segfeed

from conftest import run_python


def test_package_holds_one_native_extension_and_its_stubs():
    package = pathlib.Path(segfeed.__file__).parent
    native = sorted(p.name for p in package.iterdir() if p.suffix == ".so" or ".so." in p.name)
    assert len(native) == 1 and native[0].startswith("_core."), native
    for stub in ("_core.pyi", "_loader.pyi", "_options.pyi", "_reports.pyi", "_check.pyi"):
        assert (package / stub).is_file(), stub
    assert (package / "py.typed").is_file()
    assert not list(package.rglob("libsegfeed*")), "segfeed must be linked into _core, not shipped beside it"


def test_import_needs_no_numpy_torch_or_tensorflow():
    result = run_python("""
        import sys
        import segfeed
        print(sorted(m for m in ("numpy", "torch", "tensorflow", "jax") if m in sys.modules))
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_version_and_build_info():
    info = segfeed.build_info()
    assert segfeed.__version__ == info["version"]
    assert set(info) == {"version", "cuda_runtime", "tbb_version", "opencv_version", "giflib_version"}


def test_public_names_have_docstrings():
    for name in segfeed.__all__:
        assert getattr(segfeed, name).__doc__, name
    for name in ("epoch", "state_dict", "load_state_dict", "plan", "stats", "close", "pairs"):
        assert getattr(segfeed.Loader, name).__doc__, name
    for name in ("images", "masks", "sample_ids", "params", "release"):
        assert getattr(segfeed.Batch, name).__doc__, name


def test_the_package_carries_the_segfeed_command():
    """`python -m segfeed` runs the binary shipped in segfeed/bin, with its exit statuses."""
    import subprocess
    import sys
    version = subprocess.run([sys.executable, "-m", "segfeed", "--version"], capture_output=True, text=True)
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith(f"segfeed {segfeed.__version__} ("), version.stdout
    unknown = subprocess.run([sys.executable, "-m", "segfeed", "no-such-command"], capture_output=True, text=True)
    assert unknown.returncode == 2 and "unknown command 'no-such-command'" in unknown.stderr


def test_one_version_everywhere():
    """CMake's project version is the package's (pyproject.toml reads it from CMakeLists.txt)."""
    import re
    cmake = pathlib.Path(__file__).resolve().parents[2] / "CMakeLists.txt"
    if not cmake.is_file():
        import pytest
        pytest.skip("no source tree beside the tests")
    declared = re.search(r"project\(segfeed VERSION ([0-9.]+)", cmake.read_text()).group(1)
    assert segfeed.__version__ == declared
