// segfeed preview: a grid of augmented samples exactly as the loader
// produces them, each with its mask overlaid, and optionally the raw
// samples and their parameters as files.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/loader_flags.h"
#include "cli/output_flags.h"
#include "cli/preview_dump.h"
#include "cli/preview_grid.h"
#include "cli/subcommands.h"
#include "output/image_writers.h"
#include "output/printable.h"
#include "segfeed/loader.h"

namespace segfeed::cli {
namespace {

constexpr const char* kHelp =
    R"(usage: segfeed preview DATASET (--out FILE.png | --dump DIR) [options]
DATASET: --data ROOT [--dataset NAME [--split S]], --images DIR --masks DIR, or --list FILE

Runs the loader (the same code a trainer gets, uint8 NHWC images) for the
first --count samples of an epoch and shows them as they come out: each
image with its mask overlaid (translucent magenta, yellow outline) and
labelled with its sample id, stem, flips, rotation and colour factors. A
mask that does not follow its image shows at a glance. With --mask-mode
labels each class but the background takes its colour (VOC's for up to 21
classes, a generated palette beyond), ignore pixels are hatched, and a
legend line lists the classes present, with their names where named.

The grid has ceil(sqrt(count)) columns; each cell is the output image
(at least 224 px wide) above a 48 px label band, with 4 px gaps.

The masks come in the dtype bench and a trainer would get (--mask-dtype, by
default float32 for binary masks and int64 for label maps), so an
--ignore-index of -1 or -100 is drawn as ignore like 255. --dtype, --layout
and --normalize are not accepted: preview shows uint8 NHWC images. --batch
defaults to min(count, 16).
)";

// The options preview fixes: it shows uint8 NHWC images. The mask dtype is
// left as bench would run it: it decides which ignore_index is allowed.
constexpr const char* kFixedOptions[] = {"image_dtype", "layout", "normalize"};

// --out writes a PNG: another extension is a usage error.
void RequirePngName(const std::string& out_path) {
  std::string extension = std::filesystem::path(out_path).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension != ".png") throw UsageError("--out must name a .png file (got '" + out_path + "')");
}

// Writes the grid of `samples` (all of one size) to `out_file` and says so;
// false, with the error printed, when it could not be written.
bool WriteGrid(const output::OutputFile& out_file, const std::string& out_path,
               const std::vector<PreviewSample>& samples, bool labels,
               const std::vector<std::string>& class_names) {
  const int width = samples.front().width, height = samples.front().height;
  const PreviewGridLayout layout =
      PlanPreviewGrid(static_cast<int>(samples.size()), width, height, labels);
  const std::vector<uint8_t> grid = RenderPreviewGrid(samples, layout, class_names);
  const Status status = output::WritePng(out_file, grid.data(), layout.width, layout.height, 3);
  if (!status.ok()) {
    std::cerr << "segfeed preview: " << output::PrintableText(status.error().Message()) << "\n";
    return false;
  }
  std::printf("segfeed preview: wrote %s, %zu samples of %dx%d in a %dx%d grid, %dx%d px\n",
              output::PrintableText(out_path).c_str(), samples.size(), width, height,
              layout.columns, layout.rows, layout.width, layout.height);
  return true;
}

}  // namespace

int RunPreview(std::span<const std::string> args) {
  CommandLine cli("preview", kHelp, output::kNamesHelp);
  std::optional<std::string> out_path, dump_dir;
  int count = 16;
  int64_t epoch = 0;
  cli.AddText("--out", "FILE.png", &out_path, "write the grid as a PNG");
  cli.AddText("--dump", "DIR", &dump_dir,
              "write each sample as DIR/<stem>_image.png and DIR/<stem>_mask.png (0/255, or the "
              "class ids of a label map, with 255 for an ignore_index outside 0-255), and "
              "DIR/params.json with every sample's id, stem, file names and augmentation "
              "parameters. A stem too long for a 255-byte file name is cut at a character and "
              "tagged with '~' and 8 hex digits of its digest; params.json has the whole stem. A "
              "stem's sub-folders (aachen/...) are made inside DIR; '.', '..' and empty parts "
              "are dropped and the name tagged");
  cli.AddInt("--count", &count, 1, 256, "samples to show, in stream order");
  cli.AddInt("--epoch", &epoch, 0, INT64_MAX,
             "epoch to show; each epoch has its own order and augmentations");
  const DatasetFlags dataset(cli);
  const LoaderFlags loader_flags(cli);
  if (!cli.Parse(args)) return 0;
  for (const char* fixed : kFixedOptions) {
    if (loader_flags.Given(fixed)) {
      throw UsageError("--" + std::string(FindOption(fixed)->flag()) +
                       " cannot be set: preview shows uint8 NHWC images");
    }
  }
  if (!out_path && !dump_dir) throw UsageError("give --out FILE.png, --dump DIR or both");
  if (out_path) RequirePngName(*out_path);
  const DatasetSpec spec = dataset.Spec();
  // Checked before the loader runs: a bad path fails at once, and nothing
  // is ever written among the files being read.
  const std::optional<output::OutputFile> out_file = OutputFileFromFlag(out_path, "--out", dataset);
  OutputFolderFromFlag(dump_dir, "--dump", dataset);

  LoaderOptions options = loader_flags.Options(spec);
  options.output.image_dtype = ElementType::kUint8;
  options.output.layout = Layout::kNHWC;
  // One batch covers a small grid; a large one streams through a bounded pool.
  if (!loader_flags.Given("batch_size")) options.batch_size = std::min(count, 16);
  loader_flags.Check(options, spec);

  const bool show_progress = isatty(STDERR_FILENO) != 0;
  Loader loader(spec, options);
  const std::vector<PreviewSample> samples = CollectPreviewSamples(
      loader, epoch, count,
      [&](int done) {
        if (show_progress) std::fprintf(stderr, "\rpreview: %d of %d samples", done, count);
      },
      options.decode.mask_mode == MaskMode::kLabels ? options.decode.num_classes : 0);
  if (show_progress) std::fprintf(stderr, "\n");
  if (samples.empty()) {
    std::cerr << "segfeed preview: epoch " << epoch << " has no samples\n";
    return 1;
  }
  if (static_cast<int>(samples.size()) < count) {
    std::printf("segfeed preview: the epoch has only %zu samples, showing all of them\n",
                samples.size());
  }

  if (out_path && !WriteGrid(*out_file, *out_path, samples,
                             options.decode.mask_mode == MaskMode::kLabels, loader.class_names())) {
    return 1;
  }
  if (dump_dir) {
    const Status status = WritePreviewDump(*dump_dir, samples, options.seed, epoch);
    if (!status.ok()) {
      std::cerr << "segfeed preview: " << output::PrintableText(status.error().Message()) << "\n";
      return 1;
    }
    std::printf("segfeed preview: wrote %zu image/mask pairs and params.json to %s\n",
                samples.size(), output::PrintableText(*dump_dir).c_str());
  }
  return 0;
}

}  // namespace segfeed::cli
