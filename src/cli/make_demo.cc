// segfeed make-demo: writes a synthetic Carvana-like dataset.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "cli/command_line.h"
#include "cli/subcommands.h"
#include "demo/demo_dataset.h"
#include "output/printable.h"

namespace segfeed::tools {
namespace {

constexpr const char* kHelp = R"(usage: segfeed make-demo OUT_DIR [options]

Writes a synthetic dataset in Carvana's layout: OUT_DIR/train/<stem>.jpg
(RGB photos of a car in a studio, JPEG 4:2:0) and
OUT_DIR/train_masks/<stem>_mask.gif (two-colour GIF, 1 = car). The files
depend only on the options: the same seed gives byte-identical files,
whatever --threads is.

--classes N (2 to 255) writes scenes of several objects instead, each of a
class in 1..N-1 (0 is the background; a class keeps its shape and paint in
every scene), with label maps OUT_DIR/train_masks/<stem>_mask.png: with
--mask-format palette, 8-bit palette PNGs in PASCAL VOC's form (index =
class id, VOC's colour map, and index 255 on a band about 5 px wide around
every object, to be ignored in training); with --mask-format grey, 8-bit
grey PNGs whose value is the class id (the form of Cityscapes' and ADE20K's
label-id maps), without a band. --image-format png writes the photos as
OUT_DIR/train/<stem>.png (RGB, 8 bits, lossless) instead of JPEGs.

OUT_DIR must be empty or not exist yet, so that a mistyped path never mixes
demo files into real data: a folder with anything in it is refused (exit
status 2, naming what is there) unless --force is given. With --force, demo
files replace files of the same name and everything else stays as it is.

Exit status: 0 when every pair was written, 1 when a file could not be
written, 2 for a usage error (a non-empty OUT_DIR included).
)";

// How many entries a refusal names before it only counts the rest.
constexpr size_t kEntriesNamed = 5;

// Refuses an OUT_DIR that already holds something, naming the first few
// entries (folders with a trailing '/') and how many there are. A missing
// folder, an empty one and a path that is not a folder pass: the writer
// creates the first two and reports the third.
void RequireEmptyOrNew(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(dir, error)) return;
  std::vector<std::string> entries;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    std::error_code ignored;
    entries.push_back(it->path().filename().string() + (it->is_directory(ignored) ? "/" : ""));
  }
  if (error)
    throw UsageError("OUT_DIR '" + dir.string() + "' cannot be listed: " + error.message());
  if (entries.empty()) return;
  std::sort(entries.begin(), entries.end());
  std::string named;
  for (size_t i = 0; i < entries.size() && i < kEntriesNamed; ++i)
    named += (i ? ", " : "") + entries[i];
  if (entries.size() > kEntriesNamed) named += ", ...";
  throw UsageError(
      "OUT_DIR '" + dir.string() + "' is not empty (" + std::to_string(entries.size()) +
      (entries.size() == 1 ? " entry: " : " entries: ") + named +
      "); give an empty or new folder, or --force to write the demo files into it anyway");
}

}  // namespace

int RunMakeDemo(std::span<const std::string> args) {
  CommandLine cli("make-demo", kHelp);
  std::optional<std::string> out_dir_arg;
  DemoOptions options;
  bool force = false;
  cli.AddPositional("OUT_DIR", &out_dir_arg, "the folder to write, empty or new");
  cli.AddInt("--count", &options.count, 1, 1000000, "pairs to write");
  cli.AddInt("--seed", &options.seed, 0, INT64_MAX, "random seed");
  // 16 px is the smallest size at which the car still has all its parts.
  cli.AddInt("--width", &options.width, 16, 16384, "image width in pixels");
  cli.AddInt("--height", &options.height, 16, 16384, "image height in pixels");
  const CLI::Option* quality = cli.AddInt("--quality", &options.quality, 1, 100, "JPEG quality");
  const CLI::Option* mask_rows =
      cli.AddChoice("--mask-rows", &options.mask_rows,
                    {{"sequential", DemoMaskRows::kSequential},
                     {"interlaced", DemoMaskRows::kInterlaced},
                     {"mixed", DemoMaskRows::kMixed}},
                    "GIF row order: sequential (as Carvana's masks), interlaced (as Pillow writes "
                    "masks by default) or mixed (every other mask interlaced)",
                    "sequential");
  cli.AddInt(
      "--classes", &options.classes, 0, 255,
      "0: binary car masks (GIF); 2 to 255: multi-object scenes with label maps of that many "
      "classes, 0 the background (PNG)");
  const CLI::Option* mask_format = cli.AddChoice(
      "--mask-format", &options.mask_format,
      {{"palette", DemoMaskFormat::kPalette}, {"grey", DemoMaskFormat::kGrey}},
      "label maps of --classes: palette (VOC: index = class, 255 on object boundaries) or grey "
      "(value = class id, no boundary band)",
      "palette");
  cli.AddChoice("--image-format", &options.image_format,
                {{"jpeg", DemoImageFormat::kJpeg}, {"png", DemoImageFormat::kPng}},
                "photos as <stem>.jpg (JPEG 4:2:0 at --quality) or <stem>.png (RGB, lossless)",
                "jpeg");
  cli.AddInt("--threads", &options.threads, 0, 1024,
             "threads writing files, 0 = one per core; the files do not depend on it");
  cli.AddFlag("--force", &force, "write into OUT_DIR even if it is not empty");
  if (!cli.Parse(args)) return 0;
  if (options.classes == 1)
    throw UsageError("--classes must be 0 (binary masks) or in [2, 255] (got 1)");
  if (options.classes == 0 && mask_format->count() > 0)
    throw UsageError("--mask-format applies to label maps: give --classes N too");
  if (options.classes >= 2 && mask_rows->count() > 0)
    throw UsageError("--mask-rows applies to GIF masks, and --classes writes PNG label maps");
  if (options.image_format == DemoImageFormat::kPng && quality->count() > 0)
    throw UsageError("--quality applies to JPEG photos, and --image-format png writes PNGs");
  if (!out_dir_arg) throw UsageError("missing OUT_DIR");
  const std::string out_dir = *out_dir_arg;
  if (!force) RequireEmptyOrNew(out_dir);

  auto summary = WriteDemoDatasetWithProgress(out_dir, options);
  if (!summary.ok()) {
    std::cerr << "segfeed make-demo: " << PrintableText(summary.error().Message()) << "\n";
    return 1;
  }
  const DemoSummary& s = summary.value();
  const char* image_kind = options.image_format == DemoImageFormat::kPng ? "PNG" : "JPEG";
  const char* mask_kind = options.classes < 2                               ? "GIF"
                          : options.mask_format == DemoMaskFormat::kPalette ? "palette PNG"
                                                                            : "grey PNG";
  std::printf("wrote %d pairs to %s (train/, train_masks/): %dx%d, ", s.pairs,
              PrintableText(out_dir).c_str(), options.width, options.height);
  if (options.classes >= 2) std::printf("%d classes, ", options.classes);
  std::printf("mean %s %.1f KB, mean %s %.1f KB\n", image_kind,
              static_cast<double>(s.image_bytes) / s.pairs / 1000.0, mask_kind,
              static_cast<double>(s.mask_bytes) / s.pairs / 1000.0);
  return 0;
}

}  // namespace segfeed::tools
