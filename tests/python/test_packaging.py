"""The installed package: one native file, stubs, no framework needed to import."""

import pathlib

import segfeed

from conftest import run_python


def test_package_holds_one_native_extension_and_its_stubs():
    package = pathlib.Path(segfeed.__file__).parent
    native = sorted(p.name for p in package.iterdir() if p.suffix == ".so" or ".so." in p.name)
    assert len(native) == 1 and native[0].startswith("_core."), native
    for stub in ("_core.pyi", "_loader.pyi", "_options.pyi", "_reports.pyi"):
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
