"""`segfeed bench --digest` in Python, byte for byte (src/digest.h and
DigestBatch in src/cli/bench.cc): per batch its images bytes, its masks bytes
and its sample ids as little-endian uint32, all fed to one 64-bit digest."""

from __future__ import annotations

import struct
from typing import Iterable

_MASK = (1 << 64) - 1


def _step(h: int, word: int) -> int:
    h ^= (word * 0x9E3779B97F4A7C15) & _MASK
    h = ((h << 27) | (h >> 37)) & _MASK
    return (h * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) & _MASK


def _finish(h: int) -> int:
    h ^= h >> 31
    h = (h * 0xD6E8FEB86659FD93) & _MASK
    return h ^ (h >> 32)


class Digest:
    """The digest of a byte stream; depends only on the concatenation of update()s."""

    def __init__(self) -> None:
        self._state = 0x243F6A8885A308D3
        self._total_bytes = 0  # of whole 8-byte words mixed in
        self._pending = b""

    def update(self, data) -> None:
        data = self._pending + bytes(memoryview(data).cast("B"))
        whole = len(data) // 8 * 8
        state = self._state
        for (word,) in struct.iter_unpack("<Q", data[:whole]):
            state = _step(state, word)
        self._state = state
        self._total_bytes += whole
        self._pending = data[whole:]

    def hex(self) -> str:
        h = self._state
        if self._pending:
            h = _step(h, int.from_bytes(self._pending, "little"))
        return f"{_finish(_step(h, self._total_bytes)):016x}"


def update_with_batch(digest: Digest, batch) -> None:
    """What bench's DigestBatch feeds for one batch."""
    digest.update(memoryview(batch.images))
    digest.update(memoryview(batch.masks))
    digest.update(struct.pack(f"<{len(batch.sample_ids)}I", *batch.sample_ids))


def batch_digest(batch) -> str:
    d = Digest()
    update_with_batch(d, batch)
    return d.hex()


def stream_digest(batches: Iterable) -> str:
    d = Digest()
    for batch in batches:
        with batch:
            update_with_batch(d, batch)
    return d.hex()
