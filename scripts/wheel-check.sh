#!/usr/bin/env bash
# The wheel as a new user meets it: on a clean Debian 12 root filesystem
# (debootstrap's minbase plus python3 and python3-venv: no compiler, no
# CMake, no -dev package, none of segfeed's libraries), install the wheel
# and NumPy 2 from the registry into a venv and run
#   (a) the framework-free pytest suite of the repository against it,
#   (b) make-demo, check, plan, bench and preview through its `segfeed`,
#   (c) the Keras/tf.data tests in a second venv with tensorflow-cpu 2.21.
# Prints the wall time of each step and the wheel's size.
#
#   scripts/wheel-check.sh WHEEL      (scripts/dev.sh wheel-check builds one)
#
# Needs root (debootstrap, chroot, mounts) or sudo. The bare root
# filesystem is made once into build/wheel-rootfs/ and unpacked afresh for
# every run, so nothing of an earlier run is left in it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WHEEL="$(realpath "${1:?usage: scripts/wheel-check.sh WHEEL}")"
CACHE="$ROOT/build/wheel-rootfs"
BASE="$CACHE/bookworm-minbase.tar"
FS="$CACHE/fs"

log() { printf '==> %s\n' "$*" >&2; }
as_root() { if ((EUID == 0)); then "$@"; else sudo "$@"; fi; }

# The Debian mirror this machine's apt reads, so that debootstrap reaches
# the same registry (deb822 "URIs:" or a one-line "deb" entry).
apt_mirror() {
  local sources=(/etc/apt/sources.list.d/*.sources /etc/apt/sources.list)
  {
    grep -h -E '^URIs:' "${sources[@]}" 2>/dev/null | awk '{print $2}'
    grep -h -E '^deb ' "${sources[@]}" 2>/dev/null | sed -E 's/\[[^]]*\]//' | awk '{print $2}'
  } | grep -v -E 'security|^$' | grep -m1 -E '/debian/?$' || true
}

make_base() {
  [[ -f "$BASE" ]] && return
  command -v debootstrap >/dev/null || {
    log "installing debootstrap"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  }
  local staging="$CACHE/staging" mirror
  mirror="$(apt_mirror)"
  as_root rm -rf "$staging"
  mkdir -p "$CACHE"
  log "debootstrap --variant=minbase --include=python3,python3-venv bookworm (once, into $BASE)"
  as_root debootstrap --variant=minbase --include=python3,python3-venv bookworm "$staging" $mirror \
    >"$CACHE/debootstrap.log" 2>&1 || { tail -20 "$CACHE/debootstrap.log" >&2; exit 1; }
  as_root tar -C "$staging" -cf "$BASE.partial" . && mv "$BASE.partial" "$BASE"
  as_root rm -rf "$staging"
}

unmount_all() {
  local point
  for point in "$FS/dev" "$FS/proc" "$FS/sys"; do
    mountpoint -q "$point" && as_root umount -R "$point"
  done
  return 0
}

fresh_rootfs() {
  unmount_all
  as_root rm -rf "$FS"
  mkdir -p "$FS"
  as_root tar -C "$FS" -xf "$BASE"
  as_root mount --rbind /dev "$FS/dev"
  as_root mount --make-rslave "$FS/dev"
  as_root mount -t proc proc "$FS/proc"
  as_root mount -t sysfs sysfs "$FS/sys"
  trap unmount_all EXIT
  # What reaching the registry takes from this machine: name resolution,
  # pip's configuration and the certificates it names.
  as_root cp /etc/resolv.conf "$FS/etc/resolv.conf"
  [[ -f /etc/pip.conf ]] && as_root cp /etc/pip.conf "$FS/etc/pip.conf"
  as_root mkdir -p "$FS/etc/ssl/certs"
  [[ -f /etc/ssl/certs/ca-certificates.crt ]] &&
    as_root cp /etc/ssl/certs/ca-certificates.crt "$FS/etc/ssl/certs/"
  # The wheel and the repository's tracked files (the tests and samples;
  # its sources are there too, but nothing in the root filesystem could
  # build them).
  as_root mkdir -p "$FS/root/wheelhouse" "$FS/root/segfeed"
  as_root cp "$WHEEL" "$FS/root/wheelhouse/"
  git -C "$ROOT" ls-files -z | tar -C "$ROOT" --null -T - -cf - | as_root tar -C "$FS/root/segfeed" -xf -
}

# A command inside the root filesystem with a clean environment: only what
# pip needs to reach the registry passes through.
inside() {
  local pass=() name
  for name in PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_TRUSTED_HOST PIP_CERT PIP_DEFAULT_TIMEOUT; do
    [[ -n "${!name:-}" ]] && pass+=("$name=${!name}")
  done
  as_root chroot "$FS" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin LANG=C.UTF-8 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 "${pass[@]}" /bin/sh -c "cd /root/segfeed && $1"
}

TIMES=()
step() {
  local name="$1" start=$SECONDS
  log "$name"
  inside "$2"
  TIMES+=("$(printf '%-58s %4d s' "$name" $((SECONDS - start)))")
}

make_base
fresh_rootfs
wheel_name="$(basename "$WHEEL")"
log "$wheel_name: $(du -h "$WHEEL" | cut -f1) ($(stat -c %s "$WHEEL") bytes)"

step "the root filesystem has no compiler, CMake or segfeed library" '
  python3 --version
  for tool in cc gcc g++ c++ clang cmake; do
    if command -v $tool >/dev/null; then echo "found $tool" >&2; exit 1; fi
  done
  if ls /usr/include/turbojpeg.h /usr/lib/x86_64-linux-gnu/libturbojpeg* /usr/lib/x86_64-linux-gnu/libtbb* \
        /usr/lib/x86_64-linux-gnu/libopencv_core* 2>/dev/null; then echo "found a library" >&2; exit 1; fi
  echo "no compiler, no cmake, no -dev package, no turbojpeg/tbb/opencv"'

step "venv: pip install the wheel, numpy>=2, pytest" "
  python3 -m venv /root/venv &&
  /root/venv/bin/pip install -q /root/wheelhouse/$wheel_name 'numpy>=2' pytest &&
  /root/venv/bin/python -c 'import numpy, segfeed; print(\"segfeed\", segfeed.__version__, \"from\", segfeed.__file__, \"numpy\", numpy.__version__)'"

step "(a) the framework-free pytest suite" '
  SEGFEED_CLI=/root/venv/bin/segfeed /root/venv/bin/python -m pytest -q -p no:cacheprovider tests/python \
    --ignore=tests/python/keras_tf --ignore=tests/python/pytorch'

step "(b) make-demo, check, plan, bench, preview" '
  set -e
  PATH=/root/venv/bin:$PATH
  cd /tmp
  segfeed --version
  segfeed make-demo cars --count 24 --width 480 --height 320
  segfeed make-demo scenes --count 24 --width 500 --height 375 --classes 5
  segfeed check --data cars --json cars-report.json
  segfeed check --data scenes --mask-mode labels --num-classes 5
  segfeed plan --data cars --size 256 --batch 4
  segfeed bench --data cars --epochs 2 --size 256 --batch 4 --threads 2
  segfeed bench --data scenes --mask-mode labels --num-classes 5 --epochs 1 --size 128 --batch 4
  segfeed preview --data cars --size 128 --count 4 --out preview.png
  test -s cars-report.json && test -s preview.png
  status=0; segfeed plan --source-size 96x64 --rotation 0.7 >/dev/null 2>&1 || status=$?
  test $status = 2 && echo "a bad option: exit status $status, as in the CMake build"'

step "(c) venv with tensorflow-cpu 2.21 and numpy>=2: Keras/tf.data tests" "
  python3 -m venv /root/tf &&
  /root/tf/bin/pip install -q /root/wheelhouse/$wheel_name 'tensorflow-cpu==2.21.*' 'numpy>=2' pytest &&
  /root/tf/bin/python -c 'import numpy, tensorflow; print(\"tensorflow\", tensorflow.__version__, \"numpy\", numpy.__version__)' 2>/dev/null &&
  SEGFEED_CLI=/root/tf/bin/segfeed /root/tf/bin/python -m pytest -q -p no:cacheprovider tests/python/keras_tf"

log "wall times ($wheel_name, $(du -h "$WHEEL" | cut -f1)):"
printf '  %s\n' "${TIMES[@]}" >&2
