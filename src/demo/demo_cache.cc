#include "demo/demo_cache.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>

#include "output/printable.h"

namespace segfeed::demo {
namespace {

// Bump when the renderer changes, so old caches are not mistaken for new.
constexpr int kDemoVersion = 1;

}  // namespace

std::filesystem::path DemoCacheRoot() {
  if (const char* dir = std::getenv("SEGFEED_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "segfeed";
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::filesystem::path(home) / ".cache" / "segfeed";
  }
  return std::filesystem::temp_directory_path() / "segfeed-cache";
}

Result<std::filesystem::path> EnsureDemoDataset(const DemoOptions& options) {
  namespace fs = std::filesystem;
  // The options that shape the files, each in the name; those of the binary
  // Carvana set add nothing, so its folders keep the names they had.
  std::string name = "demo-v" + std::to_string(kDemoVersion) + "-n" +
                     std::to_string(options.count) + "-seed" + std::to_string(options.seed) + "-" +
                     std::to_string(options.width) + "x" + std::to_string(options.height) + "-q" +
                     std::to_string(options.quality) +
                     (options.mask_rows == DemoMaskRows::kInterlaced ? "-interlaced"
                      : options.mask_rows == DemoMaskRows::kMixed    ? "-mixed"
                                                                     : "");
  if (options.classes >= 2) {
    name += "-classes" + std::to_string(options.classes) +
            (options.mask_format == DemoMaskFormat::kGrey ? "-grey" : "-palette");
  }
  if (options.image_format == DemoImageFormat::kPng) name += "-png";
  const fs::path root = DemoCacheRoot();
  const fs::path final_dir = root / name;
  if (fs::is_directory(final_dir / "train") && fs::is_directory(final_dir / "train_masks"))
    return final_dir;

  const fs::path temp_dir = root / ("." + name + ".partial-" + std::to_string(getpid()));
  std::error_code ec;
  fs::remove_all(temp_dir, ec);
  std::fprintf(stderr, "segfeed: creating the demo dataset (%d pairs, %dx%d) in %s\n",
               options.count, options.width, options.height,
               output::PrintableText(final_dir.string()).c_str());
  auto summary = WriteDemoDatasetWithProgress(temp_dir, options);
  if (!summary.ok()) {
    fs::remove_all(temp_dir, ec);
    return summary.error();
  }
  fs::rename(temp_dir, final_dir, ec);
  if (ec) {
    // Another run may have finished the same dataset first: use theirs.
    fs::remove_all(temp_dir, ec);
    if (!fs::is_directory(final_dir / "train")) {
      return Error{ErrorKind::kIoError, final_dir.string(),
                   "cannot create the demo dataset: " + ec.message()};
    }
  }
  return final_dir;
}

}  // namespace segfeed::demo
