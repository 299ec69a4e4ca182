#include "dataset/preset_specs.h"

#include <cctype>
#include <string>
#include <system_error>

#include "dataset/class_tables.h"
#include "segfeed/errors.h"

namespace segfeed::dataset {
namespace {

namespace fs = std::filesystem;

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// The label options every label preset sets, the class names included.
std::vector<std::pair<std::string, std::string>> LabelOptions(std::span<const DatasetClass> classes,
                                                              int mask_ignore_value) {
  return {{"mask_mode", "labels"},
          {"num_classes", std::to_string(classes.size())},
          {"mask_ignore_value", std::to_string(mask_ignore_value)},
          {"class_names", ClassNamesText(classes)}};
}

DatasetSpec Paired(std::string_view name, const fs::path& root, fs::path images, fs::path masks,
                   std::string_view image_extension) {
  DatasetSpec spec;
  spec.name = std::string(name);
  spec.root = root;
  spec.image_dir = std::move(images);
  spec.mask_dir = std::move(masks);
  spec.mask_suffix = "";
  spec.image_extensions = {std::string(image_extension)};
  spec.mask_extensions = {".png"};
  return spec;
}

}  // namespace

std::string ClassNamesText(std::span<const DatasetClass> classes) {
  std::string text;
  for (const DatasetClass& one : classes) {
    if (!text.empty()) text.push_back(',');
    text.append(one.name);
  }
  return text;
}

DatasetSpec CamvidSpec(const fs::path& root, std::string_view split) {
  // SegNet's CamVid: the photos of a split in <split>/, its grey id masks
  // under the same names in <split>annot/; 11 is the void class.
  DatasetSpec spec =
      Paired("camvid", root, root / split, root / (std::string(split) + "annot"), ".png");
  spec.options = LabelOptions(CamvidClasses(), 11);
  return spec;
}

DatasetSpec Camvid32Spec(const fs::path& root) {
  // The original release (Brostow et al., 2008): 701 labelled stills, each
  // <key>.png with its colour-coded <key>_L.png; the classes are the
  // colours of the release's label_colors.txt in its order, its Void
  // colour ignored: 31 classes.
  DatasetSpec spec =
      Paired("camvid32", root, root / "701_StillsRaw_full", root / "LabeledApproved_full", ".png");
  spec.mask_suffix = "_L";
  spec.options = {{"mask_mode", "labels"}, {"num_classes", "31"}};
  // Without the file this is no camvid32 tree: the listing's layout check
  // says so, and which preset fits, rather than the option's read error.
  const fs::path colours = root / "label_colors.txt";
  std::error_code error;
  if (fs::is_regular_file(colours, error))
    spec.options.emplace_back("mask_colors", colours.string());
  return spec;
}

DatasetSpec CocoStuffSpec(const fs::path& root, std::string_view split) {
  // COCO-Stuff 164k: images/<split>2017/<id>.jpg with the stuffthingmaps
  // annotations/<split>2017/<id>.png (grey, COCO category id - 1, 255
  // unlabelled).
  const std::string folder =
      split == "train" || split == "val" ? std::string(split) + "2017" : std::string(split);
  DatasetSpec spec =
      Paired("coco_stuff", root, root / "images" / folder, root / "annotations" / folder, ".jpg");
  std::string map;
  const std::span<const int> ids = CocoStuffCategoryIds();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!map.empty()) map.push_back(',');
    map += std::to_string(ids[i] - 1) + ":" + std::to_string(i);
  }
  spec.options = LabelOptions(CocoStuffClasses(), 255);
  spec.options.emplace_back("label_map", std::move(map));
  return spec;
}

DatasetSpec MapillarySpec(const fs::path& root, std::string_view split, std::string_view version) {
  // Mapillary Vistas: <folder>/images/<key>.jpg with the palette PNGs
  // <folder>/<version>/labels/<key>.png, whose index is the config's label
  // id; the last label, Unlabeled, is no class.
  const std::string_view folder = split == "train" ? "training"
                                  : split == "val" ? "validation"
                                                   : split;
  const bool v2 = version == "v2.0";
  DatasetSpec spec = Paired(v2 ? "mapillary_v2" : "mapillary", root, root / folder / "images",
                            root / folder / version / "labels", ".jpg");
  const std::span<const DatasetClass> classes = v2 ? MapillaryV20Classes() : MapillaryV12Classes();
  spec.options = LabelOptions(classes, static_cast<int>(classes.size()));
  return spec;
}

DatasetSpec Bdd100kSpec(const fs::path& root, std::string_view split) {
  // BDD100K semantic segmentation: images/10k/<split>/<key>.jpg with
  // labels/sem_seg/masks/<split>/<key>.png, Cityscapes' train ids, 255
  // unlabelled.
  DatasetSpec spec = Paired("bdd100k", root, root / "images" / "10k" / split,
                            root / "labels" / "sem_seg" / "masks" / split, ".jpg");
  spec.options = LabelOptions(CityscapesClasses(), 255);
  return spec;
}

DatasetSpec LovedaSpec(const fs::path& root, std::string_view split) {
  // LoveDA: <Split>/<Domain>/images_png/<n>.png with
  // <Split>/<Domain>/masks_png/<n>.png; a split is "train" (both domains)
  // or "train/urban", "train/rural" (one); 0 is no data, 1-7 the classes.
  const size_t slash = split.find('/');
  const std::string part = Lower(split.substr(0, slash));
  const std::string domain = slash == std::string_view::npos ? "" : Lower(split.substr(slash + 1));
  const std::string folder = part == "train"  ? "Train"
                             : part == "val"  ? "Val"
                             : part == "test" ? "Test"
                                              : "";
  if (folder.empty() || (!domain.empty() && domain != "urban" && domain != "rural")) {
    throw ConfigError(
        "the loveda split must be train, val or test, alone (both domains) or with /urban or "
        "/rural (got '" +
        std::string(split) + "')");
  }
  const auto domain_folder = [&](std::string_view name) {
    return root / folder / (name == "urban" ? "Urban" : "Rural");
  };
  const fs::path first = domain_folder(domain.empty() ? "rural" : domain);
  DatasetSpec spec = Paired("loveda", root, first / "images_png", first / "masks_png", ".png");
  if (domain.empty()) {
    const fs::path second = domain_folder("urban");
    spec.more_folders = {{second / "images_png", second / "masks_png"}};
  }
  std::string map;
  for (int id = 1; id <= 7; ++id) {
    if (!map.empty()) map.push_back(',');
    map += std::to_string(id) + ":" + std::to_string(id - 1);
  }
  spec.options = LabelOptions(LovedaClasses(), 0);
  spec.options.emplace_back("label_map", std::move(map));
  return spec;
}

}  // namespace segfeed::dataset
