#include "memory/batch_buffers.h"

namespace segfeed::memory {
namespace {

constexpr size_t kPageBytes = 4096;

}  // namespace

size_t BatchBuffers::MaskOffset(int batch_size, size_t image_bytes_per_sample) {
  // Page-aligned so a GPU copy of the masks alone starts on a page, too.
  return (static_cast<size_t>(batch_size) * image_bytes_per_sample + kPageBytes - 1) / kPageBytes *
         kPageBytes;
}

BatchBuffers::BatchBuffers(int buffer_count, int batch_size_in, const OutputOptions& output,
                           int width, int height, PinnedMode pinned)
    : batch_size(batch_size_in),
      layout(output.layout),
      image_bytes_per_sample(static_cast<size_t>(width) * height * 3 *
                             ElementBytes(output.image_dtype)),
      mask_bytes_per_sample(static_cast<size_t>(width) * height * ElementBytes(output.mask_dtype)),
      mask_offset(MaskOffset(batch_size, image_bytes_per_sample)),
      batch_bytes(mask_offset + static_cast<size_t>(batch_size) * mask_bytes_per_sample),
      pool(buffer_count, batch_bytes, pinned),
      meta(buffer_count) {
  const int64_t image_element = ElementBytes(output.image_dtype);
  const int64_t mask_element = ElementBytes(output.mask_dtype);
  const int64_t w = width, h = height;
  for (int buffer = 0; buffer < buffer_count; ++buffer) {
    BatchMeta& m = meta[buffer];
    m.sample_ids.resize(batch_size);
    m.params.resize(batch_size);
    TensorView& images = m.images;
    images.data = pool.data(buffer);
    images.element_type = output.image_dtype;
    const int64_t sample = static_cast<int64_t>(image_bytes_per_sample);
    if (layout == Layout::kNHWC) {
      images.shape = {batch_size, h, w, 3};
      images.strides_bytes = {sample, w * 3 * image_element, 3 * image_element, image_element};
    } else {
      images.shape = {batch_size, 3, h, w};
      images.strides_bytes = {sample, h * w * image_element, w * image_element, image_element};
    }
    TensorView& masks = m.masks;
    masks.data = pool.data(buffer) + mask_offset;
    masks.element_type = output.mask_dtype;
    masks.shape = {batch_size, h, w, 1};
    masks.strides_bytes = {static_cast<int64_t>(mask_bytes_per_sample), w * mask_element,
                           mask_element, mask_element};
  }
}

std::byte* BatchBuffers::ImageSlot(int buffer, int slot) const {
  return pool.data(buffer) + static_cast<size_t>(slot) * image_bytes_per_sample;
}

std::byte* BatchBuffers::MaskSlot(int buffer, int slot) const {
  return pool.data(buffer) + mask_offset + static_cast<size_t>(slot) * mask_bytes_per_sample;
}

}  // namespace segfeed::memory
