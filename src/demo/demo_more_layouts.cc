#include "demo/demo_more_layouts.h"

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "counter_rng.h"
#include "output/image_writers.h"
#include "output/label_palette.h"

namespace segfeed::demo {
namespace {

namespace fs = std::filesystem;

// Keeps the Mapillary and BDD100K keys' stream apart from the scenes'.
constexpr uint64_t kKeySalt = 0x4B45;

// CamVid's original label_colors.txt (Brostow et al., 2008), as the release
// has it: "R G B\tName", Void (unlabelled) among the classes.
struct CamvidColour {
  std::array<uint8_t, 3> rgb;
  const char* name;
};
constexpr CamvidColour kCamvid32Colours[] = {
    {{64, 128, 64}, "Animal"},
    {{192, 0, 128}, "Archway"},
    {{0, 128, 192}, "Bicyclist"},
    {{0, 128, 64}, "Bridge"},
    {{128, 0, 0}, "Building"},
    {{64, 0, 128}, "Car"},
    {{64, 0, 192}, "CartLuggagePram"},
    {{192, 128, 64}, "Child"},
    {{192, 192, 128}, "Column_Pole"},
    {{64, 64, 128}, "Fence"},
    {{128, 0, 192}, "LaneMkgsDriv"},
    {{192, 0, 64}, "LaneMkgsNonDriv"},
    {{128, 128, 64}, "Misc_Text"},
    {{192, 0, 192}, "MotorcycleScooter"},
    {{128, 64, 64}, "OtherMoving"},
    {{64, 192, 128}, "ParkingBlock"},
    {{64, 64, 0}, "Pedestrian"},
    {{128, 64, 128}, "Road"},
    {{128, 128, 192}, "RoadShoulder"},
    {{0, 0, 192}, "Sidewalk"},
    {{192, 128, 128}, "SignSymbol"},
    {{128, 128, 128}, "Sky"},
    {{64, 128, 192}, "SUVPickupTruck"},
    {{0, 0, 64}, "TrafficCone"},
    {{0, 64, 64}, "TrafficLight"},
    {{192, 64, 128}, "Train"},
    {{128, 128, 0}, "Tree"},
    {{192, 128, 192}, "Truck_Bus"},
    {{64, 0, 64}, "Tunnel"},
    {{192, 192, 0}, "VegetationMisc"},
    {{0, 0, 0}, "Void"},
    {{64, 192, 0}, "Wall"},
};
constexpr int kCamvid32Void = 30;

// SegNet's CamVid: grey ids 0-10 and 11 (void), written as they are.
constexpr std::array<int, 12> kCamvidValues = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
// COCO-Stuff stuffthingmaps values (COCO category id - 1): person, car, stop
// sign (after the unused 11), backpack (after 25), wine glass (after 44),
// dining table (after 65), toothbrush (the last thing), banner (the first
// stuff), wood (the last value).
constexpr std::array<int, 9> kCocoStuffValues = {0, 2, 12, 26, 45, 66, 89, 91, 181};
// Mapillary Vistas: road, car, person, sky, vegetation, building, ego
// vehicle, by v1.2's ids and by v2.0's.
constexpr std::array<int, 7> kMapillaryV12Values = {13, 55, 19, 27, 30, 17, 64};
constexpr std::array<int, 7> kMapillaryV20Values = {21, 108, 30, 61, 64, 27, 120};
// BDD100K: the 19 train ids as they are.
constexpr std::array<int, 19> kBdd100kValues = {0,  1,  2,  3,  4,  5,  6,  7,  8, 9,
                                                10, 11, 12, 13, 14, 15, 16, 17, 18};
// LoveDA: classes 1-7, the band 0 (no data).
constexpr std::array<int, 7> kLovedaValues = {1, 2, 3, 4, 5, 6, 7};

std::string Numbered(const char* format, long long number) {
  char text[48];
  std::snprintf(text, sizeof text, format, number);
  return text;
}

// Mapillary's and BDD100K's keys look random; these are a function of the seed.
std::string HashKey(uint64_t seed, int index, bool bdd) {
  const uint64_t hash = CounterRng(seed ^ kKeySalt).At(static_cast<uint64_t>(index));
  char text[48];
  if (bdd) {
    std::snprintf(text, sizeof text, "%08x-%08x", static_cast<unsigned>(hash >> 32),
                  static_cast<unsigned>(hash));
  } else {
    std::snprintf(text, sizeof text, "%016llx_%05d", static_cast<unsigned long long>(hash), index);
  }
  return text;
}

// The scene's label map with each class (and the band) as the file value.
std::vector<uint8_t> FileValues(const DemoRaster& raster, const DemoLabelValues& values) {
  std::vector<uint8_t> out(raster.mask.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const uint8_t scene = raster.mask[i];
    out[i] = static_cast<uint8_t>(
        scene == kDemoIgnoreLabel ? values.band : values.classes[static_cast<size_t>(scene)]);
  }
  return out;
}

std::string LabelColorsText() {
  std::string text;
  for (const CamvidColour& colour : kCamvid32Colours) {
    text += std::to_string(colour.rgb[0]) + " " + std::to_string(colour.rgb[1]) + " " +
            std::to_string(colour.rgb[2]) + "\t" + colour.name + "\n";
  }
  return text;
}

}  // namespace

DemoLabelValues DemoLayoutLabelValues(DemoLayout layout) {
  switch (layout) {
    case DemoLayout::kCamvid:
      return {kCamvidValues, 11};
    case DemoLayout::kCamvid32:
      return {{}, kCamvid32Void};  // colours: the scene class is the line
    case DemoLayout::kCocoStuff:
      return {kCocoStuffValues, 255};
    case DemoLayout::kMapillary:
      return {kMapillaryV12Values, 65};
    case DemoLayout::kBdd100k:
      return {kBdd100kValues, 255};
    case DemoLayout::kLoveda:
      return {kLovedaValues, 0};
    default:
      break;
  }
  return {};
}

DemoLabelValues DemoMapillaryV2LabelValues() { return {kMapillaryV20Values, 123}; }

DemoOptions MoreLayoutSceneOptions(DemoLayout layout, const DemoOptions& options) {
  DemoOptions scene = options;
  // The palette form draws the band that becomes the unlabelled value.
  scene.mask_format = DemoMaskFormat::kPalette;
  scene.image_format = DemoImageFormat::kJpeg;
  switch (layout) {
    case DemoLayout::kCamvid:
      // SegNet's void is a class value of its own (11), not a band.
      scene.classes = static_cast<int>(kCamvidValues.size());
      scene.mask_format = DemoMaskFormat::kGrey;
      scene.image_format = DemoImageFormat::kPng;
      break;
    case DemoLayout::kCamvid32:
      scene.classes = static_cast<int>(std::size(kCamvid32Colours));
      scene.image_format = DemoImageFormat::kPng;
      break;
    case DemoLayout::kLoveda:
      scene.classes = static_cast<int>(kLovedaValues.size());
      scene.image_format = DemoImageFormat::kPng;
      break;
    default:
      scene.classes = static_cast<int>(DemoLayoutLabelValues(layout).classes.size());
      break;
  }
  return scene;
}

LayoutPlan PlanMoreLayout(DemoLayout layout, const DemoOptions& options) {
  const int pairs = options.count;
  LayoutPlan plan;
  for (int index = 0; index < pairs; ++index) {
    const bool is_val = layout != DemoLayout::kCamvid32 && IsValPair(index, pairs);
    std::string key;
    fs::path image, mask;
    switch (layout) {
      case DemoLayout::kCamvid: {
        key = Numbered("0001TP_%06lld.png", 6690 + 30LL * index);
        const std::string split = is_val ? "val" : "train";
        image = fs::path(split) / key;
        mask = fs::path(split + "annot") / key;
        break;
      }
      case DemoLayout::kCamvid32:
        key = Numbered("0001TP_%06lld", 6690 + 30LL * index);
        image = fs::path("701_StillsRaw_full") / (key + ".png");
        mask = fs::path("LabeledApproved_full") / (key + "_L.png");
        break;
      case DemoLayout::kCocoStuff: {
        key = Numbered("%012lld", 139 + 7LL * index);
        const std::string split = is_val ? "val2017" : "train2017";
        image = fs::path("images") / split / (key + ".jpg");
        mask = fs::path("annotations") / split / (key + ".png");
        break;
      }
      case DemoLayout::kMapillary: {
        key = HashKey(options.seed, index, false);
        const fs::path split = is_val ? "validation" : "training";
        image = split / "images" / (key + ".jpg");
        mask = split / "v1.2" / "labels" / (key + ".png");
        break;
      }
      case DemoLayout::kBdd100k: {
        key = HashKey(options.seed, index, true);
        const std::string split = is_val ? "val" : "train";
        image = fs::path("images") / "10k" / split / (key + ".jpg");
        mask = fs::path("labels") / "sem_seg" / "masks" / split / (key + ".png");
        break;
      }
      case DemoLayout::kLoveda:
        // The split for now; the names are given after the loop.
        image = mask = is_val ? "Val" : "Train";
        break;
      default:
        break;
    }
    plan.samples.push_back({index, image, mask});
  }
  if (layout == DemoLayout::kLoveda) {
    // Numbered through both splits, Rural before Urban in each, as the
    // release numbers them; each split's first half (rounded up) is Rural.
    int number = 0;
    for (const char* split : {"Train", "Val"}) {
      std::vector<SampleFiles*> members;
      for (SampleFiles& sample : plan.samples) {
        if (sample.image == split) members.push_back(&sample);
      }
      const size_t rural = (members.size() + 1) / 2;
      for (size_t i = 0; i < members.size(); ++i) {
        const fs::path domain = fs::path(split) / (i < rural ? "Rural" : "Urban");
        const std::string name = std::to_string(number++) + ".png";
        members[i]->image = domain / "images_png" / name;
        members[i]->mask = domain / "masks_png" / name;
      }
    }
  }
  if (layout == DemoLayout::kCamvid32)
    plan.lists.push_back({"label_colors.txt", LabelColorsText()});
  if (layout == DemoLayout::kMapillary) {
    plan.folders = {fs::path("training") / "v2.0" / "labels",
                    fs::path("validation") / "v2.0" / "labels"};
  }
  return plan;
}

Status WriteMoreLayoutMask(DemoLayout layout, const fs::path& path, const DemoRaster& raster) {
  if (layout == DemoLayout::kCamvid32) {
    // Colour-coded, as LabeledApproved_full's PNGs: each class its colour,
    // the band Void's.
    std::vector<uint8_t> rgb(raster.mask.size() * 3);
    for (size_t i = 0; i < raster.mask.size(); ++i) {
      const uint8_t scene = raster.mask[i];
      const CamvidColour& colour =
          kCamvid32Colours[scene == kDemoIgnoreLabel ? kCamvid32Void : scene];
      std::copy(colour.rgb.begin(), colour.rgb.end(), &rgb[3 * i]);
    }
    return output::WritePng(path, rgb.data(), raster.width, raster.height, 3);
  }
  if (layout == DemoLayout::kMapillary) {
    // Palette PNGs, whose index is the label id, for both versions.
    std::vector<uint8_t> v12 = FileValues(raster, DemoLayoutLabelValues(layout));
    Status status = output::WritePalettePng(path, v12.data(), raster.width, raster.height,
                                            output::VocColormap());
    if (!status.ok()) return status;
    const fs::path split = path.parent_path().parent_path().parent_path();
    std::vector<uint8_t> v20 = FileValues(raster, DemoMapillaryV2LabelValues());
    return output::WritePalettePng(split / "v2.0" / "labels" / path.filename(), v20.data(),
                                   raster.width, raster.height, output::VocColormap());
  }
  const std::vector<uint8_t> values = FileValues(raster, DemoLayoutLabelValues(layout));
  return output::WriteGreyPng(path, values.data(), raster.width, raster.height);
}

}  // namespace segfeed::demo
