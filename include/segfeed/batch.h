#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "segfeed/augment.h"
#include "segfeed/export.h"
#include "segfeed/options.h"

namespace segfeed {

namespace memory {
struct BatchBuffers;
}  // namespace memory

// One tensor of a batch, described the way DLPack and NumPy describe
// arrays: a pointer, a shape and strides in bytes, so it can be handed to a
// framework without a copy. Images are N x H x W x C (NHWC) or N x C x H x W
// (NCHW); masks are always N x H x W x 1. N is the batch's size(), so a short
// last batch has a shorter first dimension.
struct TensorView {
  void* data = nullptr;
  ElementType element_type = ElementType::kUint8;
  std::array<int64_t, 4> shape{};
  std::array<int64_t, 4> strides_bytes{};

  // Bytes of one element: 1, 2 or 4.
  int element_bytes() const { return ElementBytes(element_type); }
  // Bytes spanned by the tensor: shape[0] x strides_bytes[0].
  size_t bytes() const { return static_cast<size_t>(shape[0] * strides_bytes[0]); }
};

// A filled batch, on loan from the loader's pool. Move-only; destroying it
// gives the buffer back so the loader can fill it again (until then the
// loader may run out of buffers and wait). The data stays valid for the
// lease's lifetime, even after the Loader itself is destroyed.
// Thread-compatible: a lease may be moved to and released on any thread.
class SEGFEED_EXPORT Lease {
 public:
  Lease(Lease&& other) noexcept;
  Lease& operator=(Lease&& other) noexcept;
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  ~Lease();

  int64_t epoch() const;
  // Index of the batch within its epoch (and shard).
  int64_t batch_index() const;
  // Samples in this batch: batch_size, or fewer for a short last batch.
  int size() const;
  int batch_size() const;
  bool is_short() const { return size() < batch_size(); }

  const TensorView& images() const;
  const TensorView& masks() const;
  Layout layout() const;

  // Per sample, in slot order: the index of the pair in the dataset listing
  // (Loader::dataset().pairs) and the augmentation applied to it.
  std::span<const uint32_t> sample_ids() const;
  std::span<const AugmentParams> params() const;

 private:
  friend class Loader;
  Lease(std::shared_ptr<memory::BatchBuffers> buffers, int buffer);
  void Release() noexcept;

  std::shared_ptr<memory::BatchBuffers> buffers_;
  int buffer_ = -1;
};

}  // namespace segfeed
