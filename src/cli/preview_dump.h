#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "cli/preview_grid.h"
#include "result.h"

namespace segfeed::tools {

// The start of a sample's dump file names, `<name>_image.png` and
// `<name>_mask.png`: the stem itself when those names fit in the 255 bytes a
// file name may have (NAME_MAX); otherwise the stem cut at a character
// boundary, then '~' and 8 hex digits of a digest of the whole stem, so
// that stems sharing a long prefix still get files of their own.
std::string PreviewDumpName(std::string_view stem);

// params.json of a preview dump: the run (seed, epoch, output size) and,
// per sample in stream order, its slot, sample id, whole stem, file names
// and every augmentation parameter. Numbers are written so they read back as
// exactly the loader's doubles:
//   {"seed": 0, "epoch": 0, "width": 160, "height": 106, "samples": [
//     {"index": 0, "sample_id": 7, "stem": "...", "image": "<name>_image.png",
//      "mask": "<name>_mask.png", "flip_lr": true, "flip_ud": false,
//      "angle_deg": -12.5, "contrast_factor": 0.53, "brightness_delta": 0.1,
//      "saturation_factor": 0.47, "hue_delta": -0.02}, ...]}
std::string PreviewParamsJson(std::span<const PreviewSample> samples, uint64_t seed, int64_t epoch);

// Writes each sample's image as `<name>_image.png` (RGB), its mask as
// `<name>_mask.png` (grey, 0 or 255), with <name> from PreviewDumpName(), and params.json into
// `dir`, creating it if needed. Each file is written as OutputFile writes it: complete or not at
// all. Returns an io_error naming the file that failed.
internal::Status WritePreviewDump(const std::filesystem::path& dir,
                                  std::span<const PreviewSample> samples, uint64_t seed,
                                  int64_t epoch);

}  // namespace segfeed::tools
