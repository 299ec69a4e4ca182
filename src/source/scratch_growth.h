#pragma once

// The one place where the buffers that grow with the input grow: the file
// buffers and the decoders' scratch (decoded pixels, GIF frame data, PNG
// scanlines and samples). Production pays one comparison with the
// capacity per resize; a test can make the N-th growth throw
// std::bad_alloc (ScratchGrowthObserverForTesting) and check that running
// out of memory on one file costs only that file.

#include <cstddef>
#include <vector>

namespace segfeed::source {

// Called before a buffer grows past its capacity to `bytes`; throws
// std::bad_alloc when a test says this growth fails.
void BeforeScratchGrowth(size_t bytes);

// buffer->resize(count), through BeforeScratchGrowth() when it allocates.
template <typename T>
void ResizeScratch(std::vector<T>* buffer, size_t count) {
  if (count > buffer->capacity()) BeforeScratchGrowth(count * sizeof(T));
  buffer->resize(count);
}

// buffer->insert(end, first, last), the same way.
template <typename T>
void AppendScratch(std::vector<T>* buffer, const T* first, const T* last) {
  const size_t count = buffer->size() + static_cast<size_t>(last - first);
  if (count > buffer->capacity()) BeforeScratchGrowth(count * sizeof(T));
  buffer->insert(buffer->end(), first, last);
}

// Sees every growth for this object's lifetime, for tests only (internal,
// never exported; does not nest; made and destroyed while nothing reads).
class ScratchGrowthObserverForTesting {
 public:
  ScratchGrowthObserverForTesting();
  ScratchGrowthObserverForTesting(const ScratchGrowthObserverForTesting&) = delete;
  ScratchGrowthObserverForTesting& operator=(const ScratchGrowthObserverForTesting&) = delete;
  virtual ~ScratchGrowthObserverForTesting();

  // Called from any decode thread before a growth to `bytes`; may throw
  // std::bad_alloc.
  virtual void BeforeGrowth(size_t bytes) = 0;
};

}  // namespace segfeed::source
