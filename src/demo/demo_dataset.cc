#include "demo/demo_dataset.h"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <optional>
#include <system_error>

#include "output/image_writers.h"

namespace segfeed::tools {
namespace {

uint64_t FileBytes(const std::filesystem::path& path) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  return ec ? 0 : bytes;
}

}  // namespace

internal::Result<DemoSummary> WriteDemoDatasetWithProgress(const std::filesystem::path& out_dir,
                                                           const DemoOptions& options) {
  const bool show_progress = isatty(STDERR_FILENO) != 0;
  auto progress = [&](int done) {
    if (show_progress && (done % 10 == 0 || done == options.count)) {
      std::fprintf(stderr, "\rmake-demo: %d/%d pairs", done, options.count);
    }
  };
  auto summary = WriteDemoDataset(out_dir, options, progress);
  if (show_progress) std::fprintf(stderr, "\n");
  return summary;
}

internal::Result<DemoSummary> WriteDemoDataset(const std::filesystem::path& out_dir,
                                               const DemoOptions& options,
                                               const std::function<void(int)>& progress) {
  const std::filesystem::path image_dir = out_dir / "train";
  const std::filesystem::path mask_dir = out_dir / "train_masks";
  for (const auto& dir : {image_dir, mask_dir}) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return Error{ErrorKind::kIoError, dir.string(), "cannot create directory: " + ec.message()};
  }

  struct Scratch {
    std::vector<float> texture;
    DemoRaster raster;
  };
  tbb::enumerable_thread_specific<Scratch> scratch;
  std::atomic<uint64_t> jpeg_bytes{0}, gif_bytes{0};
  std::atomic<int> done{0};
  std::mutex first_error_mu;
  std::optional<Error> first_error;  // guarded by first_error_mu
  std::atomic<bool> failed{false};

  tbb::parallel_for(0, options.count, [&](int index) {
    if (failed.load(std::memory_order_relaxed)) return;
    Scratch& s = scratch.local();
    RenderDemoSampleWith(options, index, &s.texture, &s.raster);
    const std::string stem = DemoStem(options.seed, index);
    const auto jpeg_path = image_dir / (stem + ".jpg");
    const auto gif_path = mask_dir / (stem + "_mask.gif");
    // Both written as OutputFile writes: complete under the final name or
    // absent, with the same permissions.
    internal::Status status =
        WriteJpeg(jpeg_path, s.raster.rgb.data(), options.width, options.height, options.quality);
    const bool interlaced = options.mask_rows == DemoMaskRows::kInterlaced ||
                            (options.mask_rows == DemoMaskRows::kMixed && index % 2 == 1);
    if (status.ok()) {
      status = WriteMaskGif(gif_path, s.raster.mask.data(), options.width, options.height,
                            interlaced ? GifRowOrder::kInterlaced : GifRowOrder::kSequential);
    }
    if (!status.ok()) {
      std::lock_guard lock(first_error_mu);
      if (!first_error) first_error = status.error();
      failed = true;
      return;
    }
    jpeg_bytes += FileBytes(jpeg_path);
    gif_bytes += FileBytes(gif_path);
    const int finished = ++done;
    if (progress) progress(finished);
  });

  if (first_error) return *first_error;
  return DemoSummary{options.count, jpeg_bytes.load(), gif_bytes.load()};
}

}  // namespace segfeed::tools
