#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: checks that segfeed's pool gets pinned
# CUDA memory and measures host-to-device bandwidth, pinned vs pageable.
# Run after `scripts/dev.sh bench` (or any release build with CUDA found).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=build/release
[[ -x $build/bench/h2d_bandwidth ]] || { echo "build with the CUDA toolkit first (SEGFEED_CUDA=ON)" >&2; exit 1; }
echo "== pinned allocation and copy bandwidth"
$build/bench/h2d_bandwidth 256 20
echo "== the loader's pool must be cuda_host when asked for pinned=cuda"
report="$(mktemp)"
trap 'rm -f "$report"' EXIT
$build/src/cli/segfeed bench --pinned cuda --epochs 2 --json "$report" | grep -E "memory:|throughput|loaded"
grep -o '"pool_kind":"[a-z_]*"' "$report"
