"""`python -m segfeed` and the `segfeed` console script: the segfeed command.

The command is the C++ binary built with the package (segfeed/bin/segfeed),
the same one a CMake build installs. It replaces this process, so its
subcommands, output, signals and exit statuses are exactly the binary's.
"""

from __future__ import annotations

import os
import pathlib
import sys


def command_path() -> pathlib.Path:
    """Where the package's segfeed binary is."""
    return pathlib.Path(__file__).resolve().parent / "bin" / "segfeed"


def main() -> None:
    binary = command_path()
    if not os.access(binary, os.X_OK):
        sys.stderr.write(f"segfeed: the package has no segfeed command at {binary}: "
                         "reinstall it (pip install --force-reinstall segfeed)\n")
        sys.exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(binary, ["segfeed", *sys.argv[1:]])


if __name__ == "__main__":
    main()
