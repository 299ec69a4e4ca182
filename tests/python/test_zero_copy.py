"""Batches reach NumPy and PyTorch without a copy, aligned, with the right dtype, shape and strides."""

import ctypes
import itertools

import numpy as np
import pytest
import segfeed

torch = pytest.importorskip("torch")

IMAGE_DTYPES = {"uint8": (np.uint8, 1), "float16": (np.float16, 2), "float32": (np.float32, 4)}
MASK_DTYPES = {"uint8": (np.uint8, 1), "float32": (np.float32, 4)}
TORCH_DTYPES = {"uint8": torch.uint8, "float16": torch.float16, "float32": torch.float32}


def loader(demo, **options):
    options.setdefault("batch_size", 4)  # 10 pairs: batches of 4, 4 and a short 2
    options.setdefault("size", (32, 48))
    options.setdefault("threads", 2)
    return segfeed.Loader(demo, **options)


@pytest.mark.parametrize("image_dtype,layout,mask_dtype",
                         list(itertools.product(IMAGE_DTYPES, ("nhwc", "nchw"), MASK_DTYPES)))
def test_every_dtype_and_layout_maps_to_numpy_and_torch(demo, image_dtype, layout, mask_dtype):
    with loader(demo, image_dtype=image_dtype, layout=layout, mask_dtype=mask_dtype) as l:
        for batch in l:
            n = batch.size
            np_image, image_bytes = IMAGE_DTYPES[image_dtype]
            np_mask, mask_bytes = MASK_DTYPES[mask_dtype]
            image_shape = (n, 32, 48, 3) if layout == "nhwc" else (n, 3, 32, 48)
            image_strides = tuple(int(np.prod(image_shape[i + 1:])) * image_bytes for i in range(4))
            assert batch.images.shape == image_shape and batch.images.dtype == image_dtype
            assert batch.images.strides == image_strides
            assert batch.masks.shape == (n, 32, 48, 1) and batch.masks.dtype == mask_dtype
            for export in (np.asarray(batch.images), np.from_dlpack(batch.images)):
                assert export.dtype == np_image and export.shape == image_shape and export.strides == image_strides
                assert export.ctypes.data == batch.images.data_ptr
            for export in (np.asarray(batch.masks), np.from_dlpack(batch.masks)):
                assert export.dtype == np_mask and export.shape == (n, 32, 48, 1)
                assert export.ctypes.data == batch.masks.data_ptr
                assert set(np.unique(export)) <= {0, 1}
            images, masks = torch.from_dlpack(batch.images), torch.from_dlpack(batch.masks)
            assert images.dtype == TORCH_DTYPES[image_dtype] and tuple(images.shape) == image_shape
            assert tuple(s * image_bytes for s in images.stride()) == image_strides
            assert images.data_ptr() == batch.images.data_ptr
            assert masks.dtype == TORCH_DTYPES[mask_dtype] and masks.data_ptr() == batch.masks.data_ptr
            if image_dtype == "float32":
                assert 0.0 <= float(images.min()) and float(images.max()) <= 1.0
            del images, masks
            batch.release()


def test_every_pointer_is_64_byte_aligned_short_last_batch_included(demo):
    sizes = []
    with loader(demo, image_dtype="float16", mask_dtype="uint8", layout="nchw", prefetch_batches=3) as l:
        for epoch in range(2):
            for batch in l.epoch(epoch):
                with batch:
                    sizes.append(batch.size)
                    for tensor in (batch.images, batch.masks):
                        assert tensor.data_ptr % 64 == 0
                        assert np.asarray(tensor).ctypes.data % 64 == 0
                        assert torch.from_dlpack(tensor).data_ptr() % 64 == 0
    assert sizes == [4, 4, 2, 4, 4, 2]


def test_dlpack_device_is_the_cpu(demo):
    with loader(demo) as l:
        batch = next(iter(l))
        assert batch.images.__dlpack_device__() == (1, 0)
        assert batch.masks.__dlpack_device__() == (1, 0)
        batch.release()


def test_versioned_dlpack_on_request(demo):
    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.restype, is_valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
    with loader(demo) as l:
        with next(iter(l)) as batch:
            assert is_valid(batch.images.__dlpack__(), b"dltensor")
            assert is_valid(batch.images.__dlpack__(max_version=(1, 0)), b"dltensor_versioned")
            assert is_valid(batch.images.__dlpack__(stream=None, max_version=None, dl_device=(1, 0), copy=False),
                            b"dltensor")


def test_copy_or_another_device_raises_buffer_error(demo):
    with loader(demo) as l:
        with next(iter(l)) as batch:
            with pytest.raises(BufferError):
                batch.images.__dlpack__(copy=True)
            with pytest.raises(BufferError):
                batch.images.__dlpack__(dl_device=(2, 0))
            with pytest.raises(TypeError):
                batch.images.__dlpack__(None)  # keyword-only, as the array API says


def test_buffer_protocol_is_writable_and_shared(demo):
    with loader(demo, image_dtype="uint8") as l:
        with next(iter(l)) as batch:
            view = memoryview(batch.images)
            assert view.format == "B" and view.shape == batch.images.shape and not view.readonly
            first = np.asarray(batch.images)
            second = np.from_dlpack(batch.images)
            first[0, 0, 0, 0] = 7
            assert second[0, 0, 0, 0] == 7 and view[0, 0, 0, 0] == 7
