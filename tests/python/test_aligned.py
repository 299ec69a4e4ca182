"""segfeed's copies for TensorFlow start on a 64-byte boundary, hold the same values, and own their memory."""

import numpy as np
import pytest

from segfeed._aligned import TENSOR_ALIGNMENT, aligned_copy

SOURCES = {
    "float32 batch": lambda: np.random.default_rng(0).random((16, 64, 64, 3), dtype=np.float32),
    "float16 batch": lambda: np.random.default_rng(1).random((4, 3, 33, 17)).astype(np.float16),
    "uint8 mask": lambda: np.random.default_rng(2).integers(0, 256, (5, 31, 7, 1), dtype=np.uint8),
    "int64 labels": lambda: np.arange(3 * 5 * 7, dtype=np.int64).reshape(3, 5, 7),
    "strided view": lambda: np.arange(4 * 6 * 8, dtype=np.float32).reshape(4, 6, 8)[:, ::2, 1::3],
    "transposed": lambda: np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4).transpose(2, 0, 1),
    "empty batch": lambda: np.zeros((0, 8, 8, 3), dtype=np.float32),
    "scalar": lambda: np.array(2.5, dtype=np.float32),
}


@pytest.mark.parametrize("name", SOURCES)
def test_the_copy_is_aligned_contiguous_equal_and_its_own(name):
    source = SOURCES[name]()
    copy = aligned_copy(source)
    assert copy.ctypes.data % TENSOR_ALIGNMENT == 0
    assert copy.flags.c_contiguous and copy.dtype == source.dtype and copy.shape == source.shape
    np.testing.assert_array_equal(copy, source)
    if source.size:
        assert not np.shares_memory(copy, source)
        copy.flat[0] += 1  # writable, and the source is not touched
        assert copy.flat[0] != source.flat[0]


def test_large_batches_are_aligned_where_numpys_own_copy_is_not():
    # NumPy's allocations of batch size are 16 bytes past a 64-byte boundary
    # (malloc's header before an mmap'd block): what TensorFlow copies again.
    sources = [np.ones((16, 128 + i, 128, 3), dtype=np.float32) for i in range(8)]
    assert any(np.array(source).ctypes.data % TENSOR_ALIGNMENT for source in sources)
    assert all(aligned_copy(source).ctypes.data % TENSOR_ALIGNMENT == 0 for source in sources)
