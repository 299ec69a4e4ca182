#!/usr/bin/env bash
# Runs clang-tidy (the checks named in .clang-tidy) over every source file in
# src/, with the compile commands of the `thread-safety` preset (clang, so
# clang-tidy sees exactly the flags clang compiles with), and fails on any
# finding. Configures that preset first when it has not been. It is what
# holds the limit of 90 lines a function (readability-function-size): run it
# before a change that adds or grows functions is merged. (The 450 lines a
# file are checked by ctest, tests/limits.)
#
#   scripts/tidy.sh                 all of src/
#   scripts/tidy.sh src/decode/*.cc only these files
#   JOBS=4 scripts/tidy.sh          more files at once (default 2)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD=build/thread-safety

tidy=""
for candidate in clang-tidy clang-tidy-14 clang-tidy-15 clang-tidy-16; do
  if command -v "$candidate" >/dev/null; then tidy="$candidate"; break; fi
done
[[ -n "$tidy" ]] || { echo "tidy.sh: clang-tidy not found (Debian: apt install clang-tidy)" >&2; exit 2; }

if [[ ! -f "$BUILD/compile_commands.json" ]]; then
  CMAKE_GENERATOR="${CMAKE_GENERATOR:-Ninja}" cmake --preset thread-safety >/dev/null
fi

if (($# > 0)); then
  files=("$@")
else
  mapfile -t files < <(git ls-files 'src/*.cc')
fi

# One clang-tidy per file, JOBS at a time; any finding is an error
# (WarningsAsErrors in .clang-tidy), so the exit status says it all.
printf '%s\n' "${files[@]}" |
  xargs -P "${JOBS:-2}" -I{} "$tidy" -p "$BUILD" --quiet {} 2> >(grep -v '^[0-9]* warnings\? generated' >&2)
echo "tidy.sh: ${#files[@]} files clean"
