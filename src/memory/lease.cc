#include <utility>

#include "memory/batch_buffers.h"
#include "segfeed/batch.h"

namespace segfeed {

Lease::Lease(std::shared_ptr<memory::BatchBuffers> buffers, int buffer)
    : buffers_(std::move(buffers)), buffer_(buffer) {
  ++buffers_->outstanding_leases;
}

Lease::Lease(Lease&& other) noexcept
    : buffers_(std::move(other.buffers_)), buffer_(std::exchange(other.buffer_, -1)) {}

Lease& Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Release();
    buffers_ = std::move(other.buffers_);
    buffer_ = std::exchange(other.buffer_, -1);
  }
  return *this;
}

Lease::~Lease() { Release(); }

void Lease::Release() noexcept {
  if (buffers_ && buffer_ >= 0) {
    --buffers_->outstanding_leases;
    buffers_->pool.Release(buffer_);
  }
  buffers_.reset();
  buffer_ = -1;
}

int64_t Lease::epoch() const { return buffers_->meta[buffer_].epoch; }
int64_t Lease::batch_index() const { return buffers_->meta[buffer_].batch_index; }
int Lease::size() const { return buffers_->meta[buffer_].size; }
int Lease::batch_size() const { return buffers_->batch_size; }
const TensorView& Lease::images() const { return buffers_->meta[buffer_].images; }
const TensorView& Lease::masks() const { return buffers_->meta[buffer_].masks; }
Layout Lease::layout() const { return buffers_->layout; }

std::span<const uint32_t> Lease::sample_ids() const {
  const memory::BatchMeta& m = buffers_->meta[buffer_];
  return {m.sample_ids.data(), static_cast<size_t>(m.size)};
}

std::span<const AugmentParams> Lease::params() const {
  const memory::BatchMeta& m = buffers_->meta[buffer_];
  return {m.params.data(), static_cast<size_t>(m.size)};
}

}  // namespace segfeed
