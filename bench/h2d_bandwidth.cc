// Host-to-device copy bandwidth from segfeed's pool memory: pinned
// (cudaHostAlloc, what the loader uses with a GPU) against pageable memory.
// Also checks that pinned allocation works on this machine.
//
//   build/release/bench/h2d_bandwidth [MiB per copy = 128] [repetitions = 20]
//
// Needs a CUDA device; without one it says so and exits 1.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "memory/pinned_buffer.h"

namespace {

double CopyGigabytesPerSecond(const void* host, void* device, size_t bytes, int repetitions) {
  cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);  // warm-up
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repetitions; ++i) cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
  cudaDeviceSynchronize();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return static_cast<double>(bytes) * repetitions / seconds / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t bytes = static_cast<size_t>(argc > 1 ? std::atoi(argv[1]) : 128) << 20;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 20;
  std::string why_not;
  if (!segfeed::memory::CudaDeviceAvailable(&why_not)) {
    std::printf("h2d_bandwidth: %s\n", why_not.c_str());
    return 1;
  }
  cudaDeviceProp properties{};
  cudaGetDeviceProperties(&properties, 0);
  void* device = nullptr;
  if (cudaMalloc(&device, bytes) != cudaSuccess) {
    std::printf("h2d_bandwidth: cudaMalloc of %zu bytes failed\n", bytes);
    return 1;
  }
  segfeed::memory::PinnedBuffer pinned(bytes,
                                       segfeed::PinnedMode::kCuda);  // throws if impossible
  segfeed::memory::PinnedBuffer pageable(bytes, segfeed::PinnedMode::kOff);
  std::printf("device: %s; copies of %zu MiB x %d\n", properties.name, bytes >> 20, repetitions);
  const double pinned_gbps = CopyGigabytesPerSecond(pinned.data(), device, bytes, repetitions);
  const double pageable_gbps = CopyGigabytesPerSecond(pageable.data(), device, bytes, repetitions);
  std::printf("pinned (%s): %.1f GB/s\npageable: %.1f GB/s\npinned/pageable: %.2fx\n",
              std::string(segfeed::PoolKindName(pinned.kind())).c_str(), pinned_gbps, pageable_gbps,
              pinned_gbps / pageable_gbps);
  cudaFree(device);
  return 0;
}
