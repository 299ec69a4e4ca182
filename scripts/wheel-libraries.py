#!/usr/bin/env python3
"""Fails if a wheel needs a shared library that a minimal Linux system lacks.

auditwheel's manylinux policy lets a wheel rely on a list of system libraries
without carrying them: glibc's, libstdc++ and libgcc_s, but also libX11, libGL
and GLib. A slim container (Debian's or Ubuntu's minimal images, python:slim)
has only the first kind, so a wheel that needs libX11 passes `auditwheel show`
and then fails to import there. This reads the DT_NEEDED entries of every ELF
file in the wheel (with readelf) and accepts only libraries the wheel carries
itself or that every glibc system has.

    scripts/wheel-libraries.py WHEEL
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile
import zipfile

# The C and C++ runtimes, present on every system a manylinux wheel can run
# on (glibc's own libraries), and zlib, which dpkg and rpm themselves need
# (and CPython's zlib module).
EVERY_SYSTEM_HAS = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libutil.so.1",
    "ld-linux-x86-64.so.2", "libstdc++.so.6", "libgcc_s.so.1", "libz.so.1",
}


def is_elf(path: pathlib.Path) -> bool:
    with path.open("rb") as file:
        return file.read(4) == b"\x7fELF"


def needed(path: pathlib.Path) -> list[str]:
    dynamic = subprocess.run(["readelf", "-d", str(path)], check=True, capture_output=True, text=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    wheel = pathlib.Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as folder:
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(folder)
        files = [path for path in sorted(pathlib.Path(folder).rglob("*")) if path.is_file() and is_elf(path)]
        carried = {path.name for path in files}
        missing = 0
        for path in files:
            names = needed(path)
            outside = [name for name in names if name not in carried and name not in EVERY_SYSTEM_HAS]
            print(f"{path.relative_to(folder)}: {len(names)} needed"
                  + (f", NOT IN THE WHEEL OR EVERY SYSTEM: {' '.join(outside)}" if outside else ""))
            missing += len(outside)
    if missing:
        print(f"{wheel.name}: {missing} needed libraries a minimal system lacks", file=sys.stderr)
        return 1
    print(f"{wheel.name}: {len(files)} ELF files, each needs only the wheel's own libraries and the C/C++ runtimes and zlib")
    return 0


if __name__ == "__main__":
    sys.exit(main())
