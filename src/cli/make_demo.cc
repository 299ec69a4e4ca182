// segfeed make-demo: writes a synthetic dataset in Carvana's layout, or in
// that of PASCAL VOC, Cityscapes or ADE20K.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <iostream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "cli/command_line.h"
#include "cli/subcommands.h"
#include "demo/demo_dataset.h"
#include "demo/demo_layouts.h"
#include "output/printable.h"

namespace segfeed::cli {
namespace {

constexpr const char* kHelp = R"(usage: segfeed make-demo OUT_DIR [options]

Writes a synthetic dataset, by default (--dataset carvana) in Carvana's
layout: OUT_DIR/train/<stem>.jpg (RGB photos of a car in a studio, JPEG
4:2:0) and OUT_DIR/train_masks/<stem>_mask.gif (two-colour GIF, 1 = car).
The files depend only on the options: the same seed gives byte-identical
files, whatever --threads is.

--classes N (2 to 255) writes scenes of several objects instead, each of a
class in 1..N-1 (0 is the background; a class keeps its shape and paint in
every scene), with label maps OUT_DIR/train_masks/<stem>_mask.png: with
--mask-format palette, 8-bit palette PNGs in PASCAL VOC's form (index =
class id, VOC's colour map, and index 255 on a band about 5 px wide around
every object, to be ignored in training); with --mask-format grey, 8-bit
grey PNGs whose value is the class id (the form of Cityscapes' and ADE20K's
label-id maps), without a band. --image-format png writes the photos as
OUT_DIR/train/<stem>.png (RGB, 8 bits, lossless) instead of JPEGs.

--dataset NAME (a preset's name: voc, cityscapes, ade20k, camvid,
camvid32, coco_stuff, mapillary, mapillary_v2, bdd100k, loveda) writes
--count annotated pairs in that dataset's public layout instead, a quarter
of them (at least one) in the validation split (camvid32 has none);
each fixes its own classes and file formats, so --classes, --mask-format,
--image-format and --mask-rows are refused with it, and --count must be at
least 2:

  voc: OUT_DIR/JPEGImages/<id>.jpg (ids such as 2007_000032, ascending),
  OUT_DIR/SegmentationClass/<id>.png (8-bit palette PNGs, VOC's colour map,
  index = class 0..20, 255 on a band around every object) and
  OUT_DIR/ImageSets/Segmentation/{train,val,trainval}.txt (one id a line,
  sorted). As in VOC, JPEGImages also holds photos without segmentation
  (one per four pairs), listed nowhere.

  cityscapes: OUT_DIR/leftImg8bit/<split>/<city>/<key>_leftImg8bit.png
  (RGB PNG; train: aachen, bochum; val: frankfurt; <key> as
  aachen_000000_000019) and beside it under
  OUT_DIR/gtFine/<split>/<city>/: <key>_gtFine_labelIds.png (8-bit grey,
  Cityscapes label ids: 7 road, 26 car, 24 person, 21 vegetation, 11
  building, 20 traffic sign from the 19 training classes, and 0 unlabeled on
  object outlines, 1 ego vehicle at the bottom, 4 static, 5 dynamic outside
  them), <key>_gtFine_color.png, <key>_gtFine_instanceIds.png (16-bit grey)
  and <key>_gtFine_polygons.json (no objects). No list files.

  ade20k: OUT_DIR/images/training/ADE_train_00000001.jpg, ... and
  OUT_DIR/annotations/training/ADE_train_00000001.png (8-bit grey, 1..150
  the classes, 0 = other), and the same under validation/ as ADE_val_*,
  each split numbered from 1.

  camvid (SegNet's form): OUT_DIR/{train,val}/0001TP_<n>.png (RGB PNG) with
  OUT_DIR/{train,val}annot/0001TP_<n>.png (8-bit grey, 0..10 the classes,
  11 void).

  camvid32 (the original release): OUT_DIR/701_StillsRaw_full/<key>.png
  with OUT_DIR/LabeledApproved_full/<key>_L.png (RGB colour-coded, Void
  on a band around every object) and OUT_DIR/label_colors.txt (its 32
  colours, "R G B<tab>Name").

  coco_stuff: OUT_DIR/images/{train,val}2017/<12 digits>.jpg with
  OUT_DIR/annotations/{train,val}2017/<12 digits>.png (8-bit grey, COCO
  category id - 1: 0 person, 2 car, 12 stop sign, 26 backpack, 45 wine
  glass, 66 dining table, 89 toothbrush, 91 banner, 181 wood; 255 on a band).

  mapillary, mapillary_v2: OUT_DIR/{training,validation}/images/<key>.jpg
  with <split>/v1.2/labels/<key>.png and <split>/v2.0/labels/<key>.png
  (palette PNGs, index = label id: road, car, person, sky, vegetation,
  building, ego vehicle; Unlabeled, 65 and 123, on a band).

  bdd100k: OUT_DIR/images/10k/{train,val}/<key>.jpg with
  OUT_DIR/labels/sem_seg/masks/{train,val}/<key>.png (8-bit grey train ids
  0..18, 255 on a band).

  loveda: OUT_DIR/{Train,Val}/{Rural,Urban}/images_png/<n>.png (RGB PNG)
  with .../masks_png/<n>.png (8-bit grey, 1..7 the classes, 0 no data on a
  band), numbered through both splits, Rural first.

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

const char* LayoutName(demo::DemoLayout layout) { return demo::InfoOf(layout).name; }

// The layouts other than Carvana's are their dataset's classes and formats,
// so a flag that would change those is refused rather than ignored.
void RefuseFlagsTheLayoutFixes(
    demo::DemoLayout layout,
    std::initializer_list<std::pair<const char*, const CLI::Option*>> flags) {
  for (const auto& [name, option] : flags) {
    if (option->count() > 0)
      throw UsageError(std::string(name) + " cannot be combined with --dataset " +
                       LayoutName(layout) +
                       ", which writes that dataset's own classes and file formats");
  }
}

// The summary line of a layout other than Carvana's: its folders, splits and
// file kinds.
void PrintLayoutSummary(demo::DemoLayout layout, const std::string& out_dir,
                        const demo::DemoOptions& options, const demo::DemoLayoutSummary& s) {
  const int pairs = s.train_pairs + s.val_pairs;
  const demo::DemoLayoutInfo& info = demo::InfoOf(layout);
  const char* folders = info.folders;
  const char* image_kind = info.image_kind;
  const char* mask_kind = info.mask_kind;
  std::printf("wrote %d pairs to %s (%s): %d train, %d val, ", pairs,
              output::PrintableText(out_dir).c_str(), folders, s.train_pairs, s.val_pairs);
  if (s.unannotated_photos > 0) std::printf("%d photos without labels, ", s.unannotated_photos);
  std::printf("%dx%d, mean %s %.1f KB, mean %s %.1f KB\n", options.width, options.height,
              image_kind, static_cast<double>(s.image_bytes) / pairs / 1000.0, mask_kind,
              static_cast<double>(s.mask_bytes) / pairs / 1000.0);
}

// The one line of a Carvana-layout dataset: its pairs, size, classes (with
// --classes) and mean file sizes.
void PrintCarvanaSummary(const std::string& out_dir, const demo::DemoOptions& options,
                         const demo::DemoLayoutSummary& summary) {
  const demo::DemoSummary s{summary.train_pairs, summary.image_bytes, summary.mask_bytes};
  const char* image_kind = options.image_format == demo::DemoImageFormat::kPng ? "PNG" : "JPEG";
  const char* mask_kind = options.classes < 2                                     ? "GIF"
                          : options.mask_format == demo::DemoMaskFormat::kPalette ? "palette PNG"
                                                                                  : "grey PNG";
  std::printf("wrote %d pairs to %s (train/, train_masks/): %dx%d, ", s.pairs,
              output::PrintableText(out_dir).c_str(), options.width, options.height);
  if (options.classes >= 2) std::printf("%d classes, ", options.classes);
  std::printf("mean %s %.1f KB, mean %s %.1f KB\n", image_kind,
              static_cast<double>(s.image_bytes) / s.pairs / 1000.0, mask_kind,
              static_cast<double>(s.mask_bytes) / s.pairs / 1000.0);
}

// --dataset: every preset's name, its layout.
void AddLayoutChoice(CommandLine& cli, demo::DemoLayout* layout) {
  // Mapillary's v2.0 release holds its v1.2 labels too: one tree for both presets.
  cli.AddChoice("--dataset", layout,
                {{"carvana", demo::DemoLayout::kCarvana},
                 {"voc", demo::DemoLayout::kVoc},
                 {"cityscapes", demo::DemoLayout::kCityscapes},
                 {"ade20k", demo::DemoLayout::kAde20k},
                 {"camvid", demo::DemoLayout::kCamvid},
                 {"camvid32", demo::DemoLayout::kCamvid32},
                 {"coco_stuff", demo::DemoLayout::kCocoStuff},
                 {"mapillary", demo::DemoLayout::kMapillary},
                 {"mapillary_v2", demo::DemoLayout::kMapillary},
                 {"bdd100k", demo::DemoLayout::kBdd100k},
                 {"loveda", demo::DemoLayout::kLoveda}},
                "the layout to write (see above)", "carvana");
}

}  // namespace

int RunMakeDemo(std::span<const std::string> args) {
  CommandLine cli("make-demo", kHelp);
  std::optional<std::string> out_dir_arg;
  demo::DemoOptions options;
  demo::DemoLayout layout = demo::DemoLayout::kCarvana;
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
                    {{"sequential", demo::DemoMaskRows::kSequential},
                     {"interlaced", demo::DemoMaskRows::kInterlaced},
                     {"mixed", demo::DemoMaskRows::kMixed}},
                    "GIF row order: sequential (as Carvana's masks), interlaced (as Pillow writes "
                    "masks by default) or mixed (every other mask interlaced)",
                    "sequential");
  AddLayoutChoice(cli, &layout);
  const CLI::Option* classes = cli.AddInt(
      "--classes", &options.classes, 0, demo::kDemoMaxClasses,
      "0: binary car masks (GIF); 2 to 255: multi-object scenes with label maps of that many "
      "classes, 0 the background (PNG)");
  const CLI::Option* mask_format = cli.AddChoice(
      "--mask-format", &options.mask_format,
      {{"palette", demo::DemoMaskFormat::kPalette}, {"grey", demo::DemoMaskFormat::kGrey}},
      "label maps of --classes: palette (VOC: index = class, 255 on object boundaries) or grey "
      "(value = class id, no boundary band)",
      "palette");
  const CLI::Option* image_format = cli.AddChoice(
      "--image-format", &options.image_format,
      {{"jpeg", demo::DemoImageFormat::kJpeg}, {"png", demo::DemoImageFormat::kPng}},
      "photos as <stem>.jpg (JPEG 4:2:0 at --quality) or <stem>.png (RGB, lossless)", "jpeg");
  cli.AddInt("--threads", &options.threads, 0, 1024,
             "threads writing files, 0 = one per core; the files do not depend on it");
  cli.AddFlag("--force", &force, "write into OUT_DIR even if it is not empty");
  if (!cli.Parse(args)) return 0;
  if (layout != demo::DemoLayout::kCarvana) {
    RefuseFlagsTheLayoutFixes(layout, {{"--classes", classes},
                                       {"--mask-format", mask_format},
                                       {"--image-format", image_format},
                                       {"--mask-rows", mask_rows}});
    if (std::string_view(demo::InfoOf(layout).image_kind) == "PNG" && quality->count() > 0)
      throw UsageError("--quality applies to JPEG photos, and --dataset " +
                       std::string(LayoutName(layout)) + " writes PNGs");
    if (options.count < 2)
      throw UsageError("--dataset " + std::string(LayoutName(layout)) +
                       " needs --count 2 or more, a pair for each of its splits (got " +
                       std::to_string(options.count) + ")");
  }
  // The demo's own rules, in its words, the field named as its flag.
  try {
    demo::ValidateDemoOptions(options);
  } catch (const ConfigError& e) {
    throw UsageError("--" + std::string(e.what()));
  }
  if (options.classes == 0 && mask_format->count() > 0)
    throw UsageError("--mask-format applies to label maps: give --classes N too");
  if (options.classes >= 2 && mask_rows->count() > 0)
    throw UsageError("--mask-rows applies to GIF masks, and --classes writes PNG label maps");
  if (options.image_format == demo::DemoImageFormat::kPng && quality->count() > 0)
    throw UsageError("--quality applies to JPEG photos, and --image-format png writes PNGs");
  if (!out_dir_arg) throw UsageError("missing OUT_DIR");
  const std::string out_dir = *out_dir_arg;
  if (!force) RequireEmptyOrNew(out_dir);

  auto summary = demo::WriteDemoLayoutWithProgress(out_dir, layout, options);
  if (!summary.ok()) {
    std::cerr << "segfeed make-demo: " << output::PrintableText(summary.error().Message()) << "\n";
    return 1;
  }
  if (layout == demo::DemoLayout::kCarvana) {
    PrintCarvanaSummary(out_dir, options, summary.value());
  } else {
    PrintLayoutSummary(layout, out_dir, options, summary.value());
  }
  return 0;
}

}  // namespace segfeed::cli
