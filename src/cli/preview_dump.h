#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "cli/preview_grid.h"
#include "result.h"

namespace segfeed::cli {

// The start of a sample's dump file names, `<name>_image.png` and
// `<name>_mask.png`: the stem itself when those names fit in the 255 bytes a
// file name may have (NAME_MAX); otherwise the stem cut at a character
// boundary, then '~' and 8 hex digits of a digest of the whole stem, so
// that stems sharing a long prefix still get files of their own.
std::string PreviewDumpName(std::string_view stem);

// Where a sample's dump files go under the dump folder, `<path>_image.png`
// and `<path>_mask.png`: a stem with sub-folders ("aachen/aachen_000000_000019"
// of Cityscapes, a --recursive tree, a list) keeps them, its last part named
// by PreviewDumpName(). Empty, "." and ".." parts (an absolute or climbing
// path of a list) are dropped so that the files stay inside the dump folder,
// and the name is then tagged with '~' and 8 hex digits of the digest of the
// whole stem, so that it names no other sample's files.
std::string PreviewDumpPath(std::string_view stem);

// params.json of a preview dump: the run (seed, epoch, output size) and,
// per sample in stream order, its slot, sample id, whole stem, file paths
// (relative to the dump folder, from PreviewDumpPath()) and every augmentation parameter. Numbers
// are written so they read back as exactly the loader's doubles:
//   {"seed": 0, "epoch": 0, "width": 160, "height": 106, "samples": [
//     {"index": 0, "sample_id": 7, "stem": "...", "image": "<path>_image.png",
//      "mask": "<path>_mask.png", "flip_lr": true, "flip_ud": false,
//      "angle_deg": -12.5, "contrast_factor": 0.53, "brightness_delta": 0.1,
//      "saturation_factor": 0.47, "hue_delta": -0.02}, ...]}
std::string PreviewParamsJson(std::span<const PreviewSample> samples, uint64_t seed, int64_t epoch);

// Writes each sample's image as `<path>_image.png` (RGB), its mask as
// `<path>_mask.png` (grey, 0 or 255), with <path> from PreviewDumpPath(), and params.json into
// `dir`, creating it and the sub-folders of the paths if needed. A sub-folder that exists as a
// symbolic link (or a file) is refused rather than written through. Each file is written as
// OutputFile writes it: complete or not at all. Returns an io_error naming the file or folder that
// failed.
Status WritePreviewDump(const std::filesystem::path& dir, std::span<const PreviewSample> samples,
                        uint64_t seed, int64_t epoch);

}  // namespace segfeed::cli
