#include "demo/demo_dataset.h"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <optional>
#include <system_error>

#include "output/image_writers.h"
#include "output/label_palette.h"

namespace segfeed::demo {

Status WriteEachSample(int count, int threads,
                       const std::function<Status(int, DemoScratch&)>& write) {
  tbb::enumerable_thread_specific<DemoScratch> scratch;
  std::mutex first_error_mu;
  std::optional<Error> first_error;  // guarded by first_error_mu
  std::atomic<bool> failed{false};
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  arena.execute([&] {
    tbb::parallel_for(0, count, [&](int index) {
      if (failed.load(std::memory_order_relaxed)) return;
      Status status = write(index, scratch.local());
      if (status.ok()) return;
      std::lock_guard lock(first_error_mu);
      if (!first_error) first_error = status.error();
      failed = true;
    });
  });
  if (first_error) return *first_error;
  return {};
}

uint64_t WrittenBytes(const std::filesystem::path& path) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  return ec ? 0 : bytes;
}

std::string DemoImageName(const DemoOptions& options, const std::string& stem) {
  return stem + (options.image_format == DemoImageFormat::kPng ? ".png" : ".jpg");
}

std::string DemoMaskName(const DemoOptions& options, const std::string& stem) {
  return stem + (options.classes >= 2 ? "_mask.png" : "_mask.gif");
}

Result<DemoSummary> WriteDemoDatasetWithProgress(const std::filesystem::path& out_dir,
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

Result<DemoSummary> WriteDemoDataset(const std::filesystem::path& out_dir,
                                     const DemoOptions& options,
                                     const std::function<void(int)>& progress) {
  ValidateDemoOptions(options);
  const std::filesystem::path image_dir = out_dir / "train";
  const std::filesystem::path mask_dir = out_dir / "train_masks";
  for (const auto& dir : {image_dir, mask_dir}) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return Error{ErrorKind::kIoError, dir.string(), "cannot create directory: " + ec.message()};
  }

  std::atomic<uint64_t> image_bytes{0}, mask_bytes{0};
  std::atomic<int> done{0};

  auto write_image = [&](const std::filesystem::path& path, const DemoRaster& raster) {
    if (options.image_format == DemoImageFormat::kPng)
      return output::WritePng(path, raster.rgb.data(), raster.width, raster.height, 3);
    return output::WriteJpeg(path, raster.rgb.data(), raster.width, raster.height, options.quality);
  };
  auto write_mask = [&](const std::filesystem::path& path, const DemoRaster& raster, int index) {
    if (options.classes >= 2) {
      if (options.mask_format == DemoMaskFormat::kGrey)
        return output::WriteGreyPng(path, raster.mask.data(), raster.width, raster.height);
      return output::WritePalettePng(path, raster.mask.data(), raster.width, raster.height,
                                     output::VocColormap());
    }
    const bool interlaced = options.mask_rows == DemoMaskRows::kInterlaced ||
                            (options.mask_rows == DemoMaskRows::kMixed && index % 2 == 1);
    return output::WriteMaskGif(
        path, raster.mask.data(), raster.width, raster.height,
        interlaced ? output::GifRowOrder::kInterlaced : output::GifRowOrder::kSequential);
  };

  auto write_pair = [&](int index, DemoScratch& s) -> Status {
    RenderDemoSampleWith(options, index, &s.texture, &s.raster);
    const std::string stem = DemoStem(options.seed, index);
    const auto image_path = image_dir / DemoImageName(options, stem);
    const auto mask_path = mask_dir / DemoMaskName(options, stem);
    // Both written as OutputFile writes: complete under the final name or
    // absent, with the same permissions.
    Status status = write_image(image_path, s.raster);
    if (status.ok()) status = write_mask(mask_path, s.raster, index);
    if (!status.ok()) return status;
    image_bytes += WrittenBytes(image_path);
    mask_bytes += WrittenBytes(mask_path);
    const int finished = ++done;
    if (progress) progress(finished);
    return {};
  };
  if (Status written = WriteEachSample(options.count, options.threads, write_pair); !written.ok())
    return written.error();
  return DemoSummary{options.count, image_bytes.load(), mask_bytes.load()};
}

}  // namespace segfeed::demo
