#pragma once

#include <nanobind/nanobind.h>

#include <array>
#include <cstddef>

#include "segfeed/batch.h"

namespace segfeed::python {

// One tensor of a batch (images or masks) as Python sees it: segfeed.Tensor.
// It exports the pool memory without a copy through DLPack (__dlpack__,
// __dlpack_device__) and the buffer protocol, and holds `owner` (the capsule
// that owns the batch's Lease) as long as it, or anything exported from it,
// lives: a DLPack capsule or a nanobind array references this Tensor, a
// buffer view (a NumPy array, a memoryview) references it through view->obj.
struct Tensor {
  nanobind::object owner;  // capsule holding the segfeed::Lease
  void* data = nullptr;
  ElementType element_type = ElementType::kUint8;
  Py_ssize_t item_bytes = 1;
  std::array<Py_ssize_t, 4> shape{};
  std::array<Py_ssize_t, 4> strides_bytes{};

  Tensor(nanobind::object lease_owner, const TensorView& view);
  size_t nbytes() const;
};

// Registers segfeed.Tensor on `module`.
void BindTensor(nanobind::module_& module);

}  // namespace segfeed::python
