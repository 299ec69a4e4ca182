#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "result.h"
#include "tools/preview_grid.h"

namespace segfeed::tools {

// params.json of a preview dump: the run (seed, epoch, output size) and,
// per sample in stream order, its slot, sample id, stem, file names and
// every augmentation parameter. Numbers are written so they read back as
// exactly the loader's doubles:
//   {"seed": 0, "epoch": 0, "width": 160, "height": 106, "samples": [
//     {"index": 0, "sample_id": 7, "stem": "...", "image": "<stem>_image.png",
//      "mask": "<stem>_mask.png", "flip_lr": true, "flip_ud": false,
//      "angle_deg": -12.5, "contrast_factor": 0.53, "brightness_delta": 0.1,
//      "saturation_factor": 0.47, "hue_delta": -0.02}, ...]}
std::string PreviewParamsJson(std::span<const PreviewSample> samples, uint64_t seed, int64_t epoch);

// Writes each sample's image as `<stem>_image.png` (RGB), its mask as
// `<stem>_mask.png` (grey, 0 or 255) and params.json into `dir`, creating
// it if needed. Each file is written as OutputFile writes it: complete or
// not at all. Returns an io_error naming the file that failed.
internal::Status WritePreviewDump(const std::filesystem::path& dir, std::span<const PreviewSample> samples,
                                  uint64_t seed, int64_t epoch);

}  // namespace segfeed::tools
