"""Batches reach TensorFlow without a copy (the rest of this is tests/python/test_zero_copy.py)."""

import ctypes

import numpy as np
import tensorflow as tf

import segfeed


def dlpack_data_pointer(capsule, name=b"dltensor"):
    """DLTensor.data of a DLPack capsule (the first field of DLManagedTensor)."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return ctypes.c_void_p.from_address(get(capsule, name)).value


def test_tensorflow_takes_the_batch_without_a_copy(demo):
    for image_dtype, mask_dtype, tf_image, tf_mask in (("float32", "float32", tf.float32, tf.float32),
                                                       ("float16", "uint8", tf.float16, tf.uint8),
                                                       ("uint8", "uint8", tf.uint8, tf.uint8)):
        with segfeed.Loader(demo, batch_size=4, size=(32, 48), threads=2, image_dtype=image_dtype,
                            mask_dtype=mask_dtype) as l:
            for batch in l:
                with batch:
                    images = tf.experimental.dlpack.from_dlpack(batch.images.__dlpack__())
                    masks = tf.experimental.dlpack.from_dlpack(batch.masks.__dlpack__())
                    assert images.dtype == tf_image and tuple(images.shape) == batch.images.shape
                    assert masks.dtype == tf_mask and tuple(masks.shape) == batch.masks.shape
                    assert dlpack_data_pointer(tf.experimental.dlpack.to_dlpack(images)) == batch.images.data_ptr
                    assert dlpack_data_pointer(tf.experimental.dlpack.to_dlpack(masks)) == batch.masks.data_ptr
                    # An op on it reads the pool memory as NumPy sees it.
                    np.testing.assert_array_equal(tf.reduce_sum(tf.cast(masks, tf.float32)).numpy(),
                                                  np.asarray(batch.masks, dtype=np.float32).sum())
                    del images, masks
