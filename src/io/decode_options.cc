#include <string>

#include "segfeed/errors.h"
#include "segfeed/options.h"

namespace segfeed {

void ValidateDecodeOptions(const DecodeOptions& options) {
  if (options.max_pixels < 1) {
    throw ConfigError("max_pixels must be >= 1 (got " + std::to_string(options.max_pixels) + ")");
  }
  if (options.max_file_bytes < 1) {
    throw ConfigError("max_file_bytes must be >= 1 (got " + std::to_string(options.max_file_bytes) +
                      ")");
  }
  if (options.max_pixel_scans < 1) {
    throw ConfigError("max_pixel_scans must be >= 1 (got " +
                      std::to_string(options.max_pixel_scans) + ")");
  }
  if (!(options.scratch_headroom >= 1.0 && options.scratch_headroom <= 1e6)) {
    throw ConfigError("scratch_headroom must be in [1, 1e6] (got " +
                      std::to_string(options.scratch_headroom) + ")");
  }
  if (options.mask_threshold < 0 || options.mask_threshold > 255) {
    throw ConfigError("mask_threshold must be in 0-255 (got " +
                      std::to_string(options.mask_threshold) + ")");
  }
  if (options.jpeg_warnings != JpegWarnings::kAreErrors &&
      options.jpeg_warnings != JpegWarnings::kAreIgnored) {
    throw ConfigError("jpeg_warnings must be kAreErrors or kAreIgnored (got " +
                      std::to_string(static_cast<int>(options.jpeg_warnings)) + ")");
  }
}

}  // namespace segfeed
