#!/usr/bin/env bash
# segfeed's two-command set-up. On a fresh Debian 12 machine:
#
#   scripts/dev.sh bench   install what is missing, build Release, run
#                          `segfeed bench` on the demo dataset (made once)
#   scripts/dev.sh test    install what is missing, build Release, run the
#                          whole test suite through CTest
#
# Both are idempotent: packages are installed only when missing, the build
# is incremental and the demo dataset is reused. With CI=true, `test` also
# builds and runs the AddressSanitizer and ThreadSanitizer suites.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Debian packages: the toolchain, the libraries segfeed is built on, and
# djpeg/giflib tools the tests use to cross-check our files.
PACKAGES=(
  g++ cmake ninja-build
  libtbb-dev libturbojpeg0-dev libjpeg62-turbo-dev libgif-dev libopencv-dev
  libgtest-dev libbenchmark-dev libjpeg-turbo-progs
)

log() { printf '==> %s\n' "$*" >&2; }

install_missing_packages() {
  local missing=()
  for package in "${PACKAGES[@]}"; do
    if [[ "$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null)" != installed ]]; then
      missing+=("$package")
    fi
  done
  if ((${#missing[@]} == 0)); then
    log "all Debian packages present"
    return
  fi
  local sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || { log "need root or sudo to install: ${missing[*]}"; exit 1; }
    sudo=(sudo)
  fi
  log "installing: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

build() {
  local preset="$1"
  export CMAKE_GENERATOR=Ninja
  if [[ ! -f "build/$preset/CMakeCache.txt" ]]; then
    log "configuring ($preset)"
    cmake --preset "$preset" >/dev/null
  fi
  log "building ($preset)"
  cmake --build --preset "$preset" -j "$(nproc)"
}

run_tests() {
  local preset="$1"
  log "testing ($preset)"
  ctest --preset "$preset" -j "$(nproc)"
}

case "${1:-}" in
  bench)
    shift
    install_missing_packages
    build release
    log "running segfeed bench $*"
    build/release/src/tools/segfeed bench "$@"
    ;;
  test)
    install_missing_packages
    build release
    run_tests release
    if [[ "${CI:-}" == true ]]; then
      for preset in asan tsan; do
        build "$preset"
        run_tests "$preset"
      done
    fi
    ;;
  *)
    echo "usage: scripts/dev.sh bench [segfeed bench options] | scripts/dev.sh test" >&2
    exit 2
    ;;
esac
