#include "demo/demo_layouts.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "counter_rng.h"
#include "demo/demo_dataset.h"
#include "demo/demo_layout_plan.h"
#include "demo/demo_more_layouts.h"
#include "output/image_writers.h"
#include "output/label_palette.h"
#include "output/output_file.h"

namespace segfeed::demo {
namespace {

namespace fs = std::filesystem;

// Keeps the VOC ids' stream apart from the scenes' streams.
constexpr uint64_t kVocIdSalt = 0x7C0;

// VOC: ids "<year>_<6 digits>" ascending through 2007..2012 with small
// seeded gaps, as the real ids have; an unannotated photo after every fourth
// pair; every list sorted, since the ids are made in ascending order.
LayoutPlan PlanVoc(const DemoOptions& options) {
  const int pairs = options.count;
  const int extras = pairs / 4;
  const int total = pairs + extras;
  const CounterRng gaps(options.seed ^ kVocIdSalt);
  LayoutPlan plan;
  std::string train, val, trainval;
  int year = 0, number = 0, pair = 0, extra = 0;
  for (int position = 0; position < total; ++position) {
    const int position_year = 2007 + static_cast<int>(int64_t{position} * 6 / total);
    if (position_year != year) {
      year = position_year;
      number = 0;
    }
    number += 1 + static_cast<int>(gaps.At(static_cast<uint64_t>(position)) % 4);
    char id[32];
    std::snprintf(id, sizeof id, "%04d_%06d", year, number);
    const fs::path image = fs::path("JPEGImages") / (std::string(id) + ".jpg");
    // After pairs 4, 8, ... comes one photo without segmentation.
    const bool is_extra = pair > 0 && pair % 4 == 0 && extra < pair / 4;
    if (is_extra) {
      plan.samples.push_back({pairs + extra, image, {}});
      ++extra;
      continue;
    }
    plan.samples.push_back(
        {pair, image, fs::path("SegmentationClass") / (std::string(id) + ".png")});
    (IsValPair(pair, pairs) ? val : train) += std::string(id) + "\n";
    trainval += std::string(id) + "\n";
    ++pair;
  }
  const fs::path lists = fs::path("ImageSets") / "Segmentation";
  plan.lists = {
      {lists / "train.txt", train}, {lists / "val.txt", val}, {lists / "trainval.txt", trainval}};
  return plan;
}

// Cityscapes: the training pairs split between two cities, the validation
// pairs in a third; keys "<city>_<sequence>_000019", the frame number
// aachen's real keys have (the annotated frame is the 20th of its snippet).
LayoutPlan PlanCityscapes(const DemoOptions& options) {
  const int pairs = options.count;
  LayoutPlan plan;
  struct City {
    const char* split;
    const char* name;
    int sequences = 0;
  };
  const int val = DemoValPairs(pairs);
  const int train = pairs - val;
  const City cities[] = {{"train", "aachen", (train + 1) / 2},
                         {"train", "bochum", train / 2},
                         {"val", "frankfurt", val}};
  int scene_index = 0;
  for (const City& city : cities) {
    for (int sequence = 0; sequence < city.sequences; ++sequence) {
      char key[64];
      std::snprintf(key, sizeof key, "%s_%06d_%06d", city.name, sequence, 19);
      const fs::path folder = fs::path(city.split) / city.name;
      plan.samples.push_back({scene_index++,
                              "leftImg8bit" / folder / (std::string(key) + "_leftImg8bit.png"),
                              "gtFine" / folder / (std::string(key) + "_gtFine_labelIds.png")});
    }
  }
  return plan;
}

// ADE20K: training pairs, then validation pairs, each numbered from 1.
LayoutPlan PlanAde20k(const DemoOptions& options) {
  const int pairs = options.count;
  const int val = DemoValPairs(pairs);
  LayoutPlan plan;
  for (int scene_index = 0; scene_index < pairs; ++scene_index) {
    const bool is_val = scene_index >= pairs - val;
    const int number = is_val ? scene_index - (pairs - val) + 1 : scene_index + 1;
    char stem[32];
    std::snprintf(stem, sizeof stem, "ADE_%s_%08d", is_val ? "val" : "train", number);
    const char* split = is_val ? "validation" : "training";
    plan.samples.push_back({scene_index, fs::path("images") / split / (std::string(stem) + ".jpg"),
                            fs::path("annotations") / split / (std::string(stem) + ".png")});
  }
  return plan;
}

LayoutPlan PlanLayout(DemoLayout layout, const DemoOptions& options) {
  switch (layout) {
    case DemoLayout::kVoc:
      return PlanVoc(options);
    case DemoLayout::kCityscapes:
      return PlanCityscapes(options);
    case DemoLayout::kAde20k:
      return PlanAde20k(options);
    case DemoLayout::kCarvana:
      break;
    default:
      return PlanMoreLayout(layout, options);
  }
  return {};
}

// The Cityscapes labels the demo writes, with their official colours and
// whether the class has instances (their instanceIds are id * 1000 + n).
struct CityscapesLabel {
  uint8_t id;
  output::LabelRgb colour;
  bool has_instances;
};
constexpr CityscapesLabel kUnlabeled{0, {0, 0, 0}, false};
constexpr CityscapesLabel kEgoVehicle{1, {0, 0, 0}, false};
// Scene class k (0 the background, 255 the boundary band) becomes
// kSceneLabels[k]: a mix of labels in the 19-class training table (road,
// car, person, vegetation, building, traffic sign) and labels outside it
// (static, dynamic), which a loader must map to its ignore index.
constexpr CityscapesLabel kSceneLabels[] = {
    {7, {128, 64, 128}, false},   // road
    {26, {0, 0, 142}, true},      // car
    {24, {220, 20, 60}, true},    // person
    {21, {107, 142, 35}, false},  // vegetation
    {11, {70, 70, 70}, false},    // building
    {4, {0, 0, 0}, false},        // static
    {20, {220, 220, 0}, false},   // traffic sign
    {5, {111, 74, 0}, false},     // dynamic
};
constexpr int kCityscapesSceneClasses = static_cast<int>(std::size(kSceneLabels));

// The rows at the bottom that are the car's own bonnet in every real
// frame: ego vehicle, label 1.
int EgoVehicleRows(int height) { return std::max(1, height / 8); }

const CityscapesLabel& CityscapesLabelOf(uint8_t scene_class, int y, int height) {
  if (y >= height - EgoVehicleRows(height)) return kEgoVehicle;
  if (scene_class == kDemoIgnoreLabel) return kUnlabeled;
  return kSceneLabels[scene_class];
}

// Writes the four gtFine files of one frame beside `label_ids_path`
// ("<key>_gtFine_labelIds.png"): its label ids, their colours, the instance
// ids (every object of a class is instance 0: the scene keeps no object
// identity in its map) and a polygon file listing no objects.
Status WriteCityscapesAnnotation(const fs::path& label_ids_path, const DemoRaster& raster) {
  const size_t pixels = raster.mask.size();
  std::vector<uint8_t> label_ids(pixels), colours(pixels * 3);
  std::vector<uint16_t> instance_ids(pixels);
  for (int y = 0; y < raster.height; ++y) {
    for (int x = 0; x < raster.width; ++x) {
      const size_t i = static_cast<size_t>(y) * raster.width + x;
      const CityscapesLabel& label = CityscapesLabelOf(raster.mask[i], y, raster.height);
      label_ids[i] = label.id;
      std::copy(label.colour.begin(), label.colour.end(), &colours[3 * i]);
      instance_ids[i] = static_cast<uint16_t>(label.has_instances ? label.id * 1000 : label.id);
    }
  }
  const std::string base = label_ids_path.string().substr(
      0, label_ids_path.string().size() - std::string_view("labelIds.png").size());
  Status status =
      output::WriteGreyPng(label_ids_path, label_ids.data(), raster.width, raster.height);
  if (status.ok())
    status = output::WritePng(fs::path(base + "color.png"), colours.data(), raster.width,
                              raster.height, 3);
  if (status.ok()) {
    auto file = output::OutputFile::Prepare(base + "instanceIds.png");
    if (!file.ok()) return file.error();
    status = WriteGreyPng(file.value(), instance_ids.data(), raster.width, raster.height);
  }
  if (status.ok()) {
    auto file = output::OutputFile::Prepare(base + "polygons.json");
    if (!file.ok()) return file.error();
    status = file.value().Write("{\"imgHeight\": " + std::to_string(raster.height) +
                                ", \"imgWidth\": " + std::to_string(raster.width) +
                                ", \"objects\": []}\n");
  }
  return status;
}

Status WriteTextFile(const fs::path& path, const std::string& text) {
  auto file = output::OutputFile::Prepare(path);
  if (!file.ok()) return file.error();
  return file.value().Write(text);
}

Result<DemoLayoutSummary> FromCarvana(const Result<DemoSummary>& summary) {
  if (!summary.ok()) return summary.error();
  DemoLayoutSummary out;
  out.train_pairs = summary.value().pairs;
  out.image_bytes = summary.value().image_bytes;
  out.mask_bytes = summary.value().mask_bytes;
  return out;
}

constexpr DemoLayoutInfo kLayoutInfos[] = {
    {DemoLayout::kCarvana, "carvana", "train/, train_masks/", "JPEG", "GIF"},
    {DemoLayout::kVoc, "voc",
     "JPEGImages/, SegmentationClass/, ImageSets/Segmentation/{train,val,trainval}.txt", "JPEG",
     "palette PNG"},
    {DemoLayout::kCityscapes, "cityscapes",
     "leftImg8bit/{train,val}/<city>/, gtFine/{train,val}/<city>/", "PNG", "labelIds PNG"},
    {DemoLayout::kAde20k, "ade20k",
     "images/{training,validation}/, annotations/{training,validation}/", "JPEG", "grey PNG"},
    {DemoLayout::kCamvid, "camvid", "train/, trainannot/, val/, valannot/", "PNG", "grey PNG"},
    {DemoLayout::kCamvid32, "camvid32",
     "701_StillsRaw_full/, LabeledApproved_full/, label_colors.txt", "PNG", "colour PNG"},
    {DemoLayout::kCocoStuff, "coco_stuff", "images/{train,val}2017/, annotations/{train,val}2017/",
     "JPEG", "grey PNG"},
    {DemoLayout::kMapillary, "mapillary",
     "{training,validation}/images/, {training,validation}/{v1.2,v2.0}/labels/", "JPEG",
     "palette PNG"},
    {DemoLayout::kBdd100k, "bdd100k", "images/10k/{train,val}/, labels/sem_seg/masks/{train,val}/",
     "JPEG", "grey PNG"},
    {DemoLayout::kLoveda, "loveda", "{Train,Val}/{Rural,Urban}/{images_png,masks_png}/", "PNG",
     "grey PNG"},
};

}  // namespace

bool IsValPair(int pair, int pairs) {
  const int64_t val = DemoValPairs(pairs);
  return (pair + 1) * val / pairs > pair * val / pairs;
}

const DemoLayoutInfo& InfoOf(DemoLayout layout) {
  for (const DemoLayoutInfo& info : kLayoutInfos) {
    if (info.layout == layout) return info;
  }
  return kLayoutInfos[0];
}

int DemoValPairs(int pairs) {
  if (pairs < 2) return 0;
  return std::clamp(pairs / 4, 1, pairs - 1);
}

DemoOptions DemoLayoutSceneOptions(DemoLayout layout, const DemoOptions& options) {
  DemoOptions scene = options;
  switch (layout) {
    case DemoLayout::kCarvana:
      break;
    case DemoLayout::kVoc:
      scene.classes = 21;
      scene.mask_format = DemoMaskFormat::kPalette;
      scene.image_format = DemoImageFormat::kJpeg;
      break;
    case DemoLayout::kCityscapes:
      // The palette form for its boundary band, written as "unlabeled".
      scene.classes = kCityscapesSceneClasses;
      scene.mask_format = DemoMaskFormat::kPalette;
      scene.image_format = DemoImageFormat::kPng;
      break;
    case DemoLayout::kAde20k:
      scene.classes = 151;
      scene.mask_format = DemoMaskFormat::kGrey;
      scene.image_format = DemoImageFormat::kJpeg;
      break;
    default:
      return MoreLayoutSceneOptions(layout, options);
  }
  return scene;
}

Result<DemoLayoutSummary> WriteDemoLayout(const fs::path& out_dir, DemoLayout layout,
                                          const DemoOptions& options,
                                          const std::function<void(int)>& progress) {
  ValidateDemoOptions(options);
  if (layout == DemoLayout::kCarvana)
    return FromCarvana(WriteDemoDataset(out_dir, options, progress));
  const DemoOptions scene = DemoLayoutSceneOptions(layout, options);
  const LayoutPlan plan = PlanLayout(layout, scene);

  std::set<fs::path> folders;
  for (const SampleFiles& sample : plan.samples) {
    folders.insert(sample.image.parent_path());
    if (!sample.mask.empty()) folders.insert(sample.mask.parent_path());
  }
  for (const ListFile& list : plan.lists) folders.insert(list.path.parent_path());
  folders.insert(plan.folders.begin(), plan.folders.end());
  for (const fs::path& folder : folders) {
    std::error_code ec;
    fs::create_directories(out_dir / folder, ec);
    if (ec)
      return Error{ErrorKind::kIoError, (out_dir / folder).string(),
                   "cannot create directory: " + ec.message()};
  }

  std::atomic<uint64_t> image_bytes{0}, mask_bytes{0};
  std::atomic<int> done{0};

  auto write_mask = [&](const fs::path& path, const DemoRaster& raster) {
    switch (layout) {
      case DemoLayout::kVoc:
        return output::WritePalettePng(path, raster.mask.data(), raster.width, raster.height,
                                       output::VocColormap());
      case DemoLayout::kCityscapes:
        return WriteCityscapesAnnotation(path, raster);
      case DemoLayout::kAde20k:
      case DemoLayout::kCarvana:
        break;
      default:
        return WriteMoreLayoutMask(layout, path, raster);
    }
    return output::WriteGreyPng(path, raster.mask.data(), raster.width, raster.height);
  };
  auto write_sample = [&](int sample_index, DemoScratch& s) -> Status {
    const SampleFiles& sample = plan.samples[static_cast<size_t>(sample_index)];
    RenderDemoSampleWith(scene, sample.scene_index, &s.texture, &s.raster);
    const fs::path image_path = out_dir / sample.image;
    Status status =
        scene.image_format == DemoImageFormat::kPng
            ? output::WritePng(image_path, s.raster.rgb.data(), s.raster.width, s.raster.height, 3)
            : output::WriteJpeg(image_path, s.raster.rgb.data(), s.raster.width, s.raster.height,
                                scene.quality);
    if (status.ok() && !sample.mask.empty()) status = write_mask(out_dir / sample.mask, s.raster);
    if (!status.ok()) return status;
    // Only the annotated pairs' files count towards the means reported.
    if (!sample.mask.empty()) {
      image_bytes += WrittenBytes(image_path);
      mask_bytes += WrittenBytes(out_dir / sample.mask);
    }
    const int finished = ++done;
    if (progress) progress(finished);
    return {};
  };
  if (Status written =
          WriteEachSample(static_cast<int>(plan.samples.size()), options.threads, write_sample);
      !written.ok())
    return written.error();

  for (const ListFile& list : plan.lists) {
    const Status status = WriteTextFile(out_dir / list.path, list.text);
    if (!status.ok()) return status.error();
  }
  DemoLayoutSummary summary;
  // CamVid's original release has no splits: every pair is a training one.
  summary.val_pairs = layout == DemoLayout::kCamvid32 ? 0 : DemoValPairs(options.count);
  summary.train_pairs = options.count - summary.val_pairs;
  summary.unannotated_photos = static_cast<int>(plan.samples.size()) - options.count;
  summary.image_bytes = image_bytes.load();
  summary.mask_bytes = mask_bytes.load();
  return summary;
}

Result<DemoLayoutSummary> WriteDemoLayoutWithProgress(const fs::path& out_dir, DemoLayout layout,
                                                      const DemoOptions& options) {
  if (layout == DemoLayout::kCarvana)
    return FromCarvana(WriteDemoDatasetWithProgress(out_dir, options));
  const bool show_progress = isatty(STDERR_FILENO) != 0;
  const int photos = options.count + (layout == DemoLayout::kVoc ? options.count / 4 : 0);
  auto progress = [&](int done) {
    if (show_progress && (done % 10 == 0 || done == photos)) {
      std::fprintf(stderr, "\rmake-demo: %d/%d photos", done, photos);
    }
  };
  auto summary = WriteDemoLayout(out_dir, layout, options, progress);
  if (show_progress) std::fprintf(stderr, "\n");
  return summary;
}

}  // namespace segfeed::demo
