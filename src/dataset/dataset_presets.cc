// The layouts of the public datasets as DatasetSpec presets, and what a
// preset says when it is pointed at a folder of another layout.

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "dataset/class_tables.h"
#include "dataset/dataset_layout.h"
#include "dataset/preset_specs.h"
#include "segfeed/dataset.h"
#include "segfeed/errors.h"
#include "source/file_system.h"

namespace segfeed {
namespace {

namespace fs = std::filesystem;

// Cityscapes' label ids that are trained, and their training ids, from the
// dataset's published table (cityscapesScripts, helpers/labels.py); every
// other id (unlabeled, ego vehicle, static, parking, ...) is ignored.
constexpr const char* kCityscapesTrainIds =
    "7:0,8:1,11:2,12:3,13:4,17:5,19:6,20:7,21:8,22:9,23:10,24:11,25:12,26:13,27:14,28:15,31:16,"
    "32:17,33:18";

// ADE20K's 150 classes are 1..150 in its maps, 0 being "other": trained as
// 0..149 with 0 ignored, as mmsegmentation's reduce_zero_label does. 0 is
// the preset's mask_ignore_value rather than a map entry sending it to 255,
// so the user's --ignore-index -100 holds for it too.
std::string Ade20kLabelMap() {
  std::string map;
  for (int id = 1; id <= 150; ++id) {
    if (!map.empty()) map.push_back(',');
    map.append(std::to_string(id));
    map.push_back(':');
    map.append(std::to_string(id - 1));
  }
  return map;
}

// What a layout is known by: the two folders under its root that no other
// layout has, and the line that describes it.
struct Layout {
  std::string_view name;
  std::string_view images, masks;
  std::string_view description;
};

constexpr std::array<Layout, 11> kLayouts = {{
    {"carvana", "train", "train_masks", "train/<key>.jpg with train_masks/<key>_mask.gif"},
    {"voc", "JPEGImages", "SegmentationClass",
     "JPEGImages/<id>.jpg with SegmentationClass/<id>.png, ids from "
     "ImageSets/Segmentation/<split>.txt"},
    {"cityscapes", "leftImg8bit", "gtFine",
     "leftImg8bit/<split>/<city>/<key>_leftImg8bit.png with "
     "gtFine/<split>/<city>/<key>_gtFine_labelIds.png"},
    {"ade20k", "images", "annotations",
     "images/<split>/<key>.jpg with annotations/<split>/<key>.png"},
    {"camvid", "train", "trainannot",
     "<split>/<key>.png with <split>annot/<key>.png (SegNet's CamVid: train, val, test)"},
    {"camvid32", "701_StillsRaw_full", "LabeledApproved_full",
     "701_StillsRaw_full/<key>.png with LabeledApproved_full/<key>_L.png, classes from "
     "label_colors.txt"},
    {"coco_stuff", "images", "annotations",
     "images/<split>2017/<id>.jpg with annotations/<split>2017/<id>.png"},
    {"mapillary", "training/images", "training/v1.2/labels",
     "training/images/<key>.jpg with training/v1.2/labels/<key>.png (validation/ likewise)"},
    {"mapillary_v2", "training/images", "training/v2.0/labels",
     "training/images/<key>.jpg with training/v2.0/labels/<key>.png (validation/ likewise)"},
    {"bdd100k", "images/10k", "labels/sem_seg/masks",
     "images/10k/<split>/<key>.jpg with labels/sem_seg/masks/<split>/<key>.png"},
    {"loveda", "Train", "Train",
     "Train/{Urban,Rural}/images_png/<n>.png with Train/{Urban,Rural}/masks_png/<n>.png (Val/ "
     "likewise)"},
}};

constexpr std::array<std::string_view, 11> kPresetNames = {
    "carvana",    "voc",       "cityscapes",   "ade20k",  "camvid", "camvid32",
    "coco_stuff", "mapillary", "mapillary_v2", "bdd100k", "loveda"};

bool IsFolder(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

bool HasLayout(const fs::path& root, const Layout& layout) {
  return IsFolder(root / layout.images) && IsFolder(root / layout.masks);
}

// The visible entries of `folder`, sorted, folders with a trailing '/', for
// a message: the first `at_most`, then how many more there are.
std::string Entries(const fs::path& folder, size_t at_most) {
  std::vector<std::string> entries;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with(".")) continue;
    std::error_code ignored;
    entries.push_back(name + (it->is_directory(ignored) ? "/" : ""));
  }
  std::sort(entries.begin(), entries.end());
  std::string text;
  for (size_t i = 0; i < entries.size() && i < at_most; ++i)
    text += (text.empty() ? "" : ", ") + entries[i];
  if (entries.size() > at_most)
    text += " and " + std::to_string(entries.size() - at_most) + " more";
  return text.empty() ? "nothing" : text;
}

// Why `path`, which should be a folder (or a regular file), is not one:
// "<path> is not a folder (a FIFO)"; nullopt when it is one or does not
// exist (its absence is said otherwise). Follows links; opens nothing.
std::optional<std::string> NotWhatWasExpected(const fs::path& path, bool folder) {
  struct stat info {};
  if (source::FileSystemInUse().Stat(path.c_str(), &info) != 0) return std::nullopt;
  if (folder ? S_ISDIR(info.st_mode) : S_ISREG(info.st_mode)) return std::nullopt;
  return path.string() + (folder ? " is not a folder (" : " is not a regular file (") +
         std::string(source::FileTypeName(info.st_mode)) + ")";
}

// Another preset whose default split's folders are under `root` (ADE20K's
// and COCO-Stuff's trees differ only in their split folders' names).
std::optional<std::string_view> FittingPreset(const fs::path& root, std::string_view except) {
  for (std::string_view name : kPresetNames) {
    if (name == except) continue;
    const DatasetSpec spec = DatasetPreset(name, root, "");
    if (IsFolder(spec.image_dir) && IsFolder(spec.mask_dir)) return name;
  }
  return std::nullopt;
}

const Layout& LayoutOf(std::string_view name) {
  for (const Layout& layout : kLayouts) {
    if (layout.name == name) return layout;
  }
  return kLayouts.front();
}

[[noreturn]] void Refuse(const DatasetSpec& spec, const std::string& what) {
  throw FileError(Error{ErrorKind::kIoError, spec.root.string(), what});
}

// The root does not hold the layout's two folders: say what it holds.
[[noreturn]] void RefuseRoot(const DatasetSpec& spec, const Layout& expected) {
  std::string message =
      "no " +
      std::string(IsFolder(spec.root / expected.images) ? expected.masks : expected.images) +
      "/ here, and the " + std::string(expected.name) + " layout is " +
      std::string(expected.description) + "; found " + Entries(spec.root, 8);
  for (const Layout& other : kLayouts) {
    if (other.name != expected.name && HasLayout(spec.root, other)) {
      Refuse(spec, message + ": this looks like the " + std::string(other.name) +
                       " layout, try --dataset " + std::string(other.name));
    }
  }
  // Tar shards without an index: a folder is read as shards only when it
  // holds one, so say how to read these.
  std::error_code error;
  for (fs::directory_iterator it(spec.root, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".tar") {
      Refuse(spec, message + ": these look like tar shards without an index; give them as " +
                       (spec.root / "NAME-{000000..NNNNNN}.tar").string() +
                       " or a list, or index them first: segfeed index " +
                       (spec.root / "*.tar").string());
    }
  }
  error.clear();
  // A root one or two folders too high (VOCdevkit/VOC2012, ADEChallengeData2016).
  for (fs::recursive_directory_iterator it(spec.root, error), end; !error && it != end;
       it.increment(error)) {
    if (it.depth() >= 2) {
      it.disable_recursion_pending();
      continue;
    }
    std::error_code ignored;
    if (it->is_directory(ignored) && HasLayout(it->path(), expected)) {
      Refuse(spec, message + ": the layout is one level down, try --data " + it->path().string());
    }
  }
  Refuse(spec, message);
}

}  // namespace

DatasetSpec DatasetSpec::Carvana(const fs::path& root) {
  DatasetSpec spec;
  spec.name = "carvana";
  spec.root = root;
  spec.image_dir = root / "train";
  spec.mask_dir = root / "train_masks";
  return spec;
}

DatasetSpec DatasetSpec::Voc(const fs::path& root, std::string_view split) {
  DatasetSpec spec;
  spec.name = "voc";
  spec.root = root;
  spec.image_dir = root / "JPEGImages";
  spec.mask_dir = root / "SegmentationClass";
  spec.mask_suffix = "";
  spec.image_extensions = {".jpg"};
  spec.mask_extensions = {".png"};
  spec.list_file = root / "ImageSets" / "Segmentation" / (std::string(split) + ".txt");
  // The 255 band VOC draws on every object's outline.
  spec.options = {{"mask_mode", "labels"},
                  {"num_classes", "21"},
                  {"mask_ignore_value", "255"},
                  {"class_names", dataset::ClassNamesText(dataset::VocClasses())}};
  return spec;
}

DatasetSpec DatasetSpec::Cityscapes(const fs::path& root, std::string_view split) {
  DatasetSpec spec;
  spec.name = "cityscapes";
  spec.root = root;
  spec.image_dir = root / "leftImg8bit" / split;
  spec.mask_dir = root / "gtFine" / split;
  spec.image_suffix = "_leftImg8bit";
  spec.mask_suffix = "_gtFine_labelIds";
  spec.image_extensions = {".png"};
  spec.mask_extensions = {".png"};
  spec.recursive = true;
  spec.options = {{"mask_mode", "labels"},
                  {"num_classes", "19"},
                  // labelIds has no unlabelled value of its own: ids the
                  // map leaves out (0, unlabeled, among them) are ignore.
                  {"mask_ignore_value", "255"},
                  {"label_map", kCityscapesTrainIds},
                  {"class_names", dataset::ClassNamesText(dataset::CityscapesClasses())}};
  return spec;
}

DatasetSpec DatasetSpec::Ade20k(const fs::path& root, std::string_view split) {
  const std::string_view folder = split == "train" ? "training"
                                  : split == "val" ? "validation"
                                                   : split;
  DatasetSpec spec;
  spec.name = "ade20k";
  spec.root = root;
  spec.image_dir = root / "images" / folder;
  spec.mask_dir = root / "annotations" / folder;
  spec.mask_suffix = "";
  spec.image_extensions = {".jpg"};
  spec.mask_extensions = {".png"};
  spec.options = {{"mask_mode", "labels"},
                  {"num_classes", "150"},
                  {"mask_ignore_value", "0"},
                  {"label_map", Ade20kLabelMap()},
                  {"class_names", dataset::ClassNamesText(dataset::Ade20kClasses())}};
  return spec;
}

std::span<const std::string_view> DatasetPresetNames() { return kPresetNames; }

std::span<const DatasetClass> DatasetPresetClasses(std::string_view name) {
  if (name == "voc") return dataset::VocClasses();
  if (name == "cityscapes" || name == "bdd100k") return dataset::CityscapesClasses();
  if (name == "ade20k") return dataset::Ade20kClasses();
  if (name == "camvid") return dataset::CamvidClasses();
  if (name == "coco_stuff") return dataset::CocoStuffClasses();
  if (name == "mapillary") return dataset::MapillaryV12Classes();
  if (name == "mapillary_v2") return dataset::MapillaryV20Classes();
  if (name == "loveda") return dataset::LovedaClasses();
  return {};
}

DatasetSpec DatasetPreset(std::string_view name, const fs::path& root, std::string_view split) {
  if (root.empty())
    throw ConfigError("the " + std::string(name) +
                      " preset needs data, the folder that holds its layout");
  // LoveDA's splits name a domain too ("train/urban"); its preset checks them.
  if ((name != "loveda" && split.find('/') != std::string_view::npos) || split == "." ||
      split == "..")
    throw ConfigError("split must be a name like train or val (got '" + std::string(split) + "')");
  if (name == "carvana" || name == "camvid32") {
    if (!split.empty())
      throw ConfigError("the " + std::string(name) + " layout has no splits (got split '" +
                        std::string(split) + "'): use subset and validation_fraction");
    return name == "carvana" ? DatasetSpec::Carvana(root) : dataset::Camvid32Spec(root);
  }
  const std::string_view chosen = split.empty() ? "train" : split;
  if (name == "voc") return DatasetSpec::Voc(root, chosen);
  if (name == "cityscapes") return DatasetSpec::Cityscapes(root, chosen);
  if (name == "ade20k") return DatasetSpec::Ade20k(root, chosen);
  if (name == "camvid") return dataset::CamvidSpec(root, chosen);
  if (name == "coco_stuff") return dataset::CocoStuffSpec(root, chosen);
  if (name == "mapillary") return dataset::MapillarySpec(root, chosen, "v1.2");
  if (name == "mapillary_v2") return dataset::MapillarySpec(root, chosen, "v2.0");
  if (name == "bdd100k") return dataset::Bdd100kSpec(root, chosen);
  if (name == "loveda") return dataset::LovedaSpec(root, chosen);
  std::string names;
  for (std::string_view known : kPresetNames)
    names += (names.empty() ? "" : ", ") + std::string(known);
  throw ConfigError("dataset must be one of " + names + ", folders, list (got '" +
                    std::string(name) + "')");
}

namespace dataset {

void CheckLayout(const DatasetSpec& spec) {
  const bool preset =
      std::find(kPresetNames.begin(), kPresetNames.end(), spec.name) != kPresetNames.end();
  // A missing root reports itself when it is listed; a spec changed after
  // the preset made it is the user's own rule.
  if (!preset || spec.root.empty() || !IsFolder(spec.root)) return;
  const Layout& layout = LayoutOf(spec.name);
  // The split's own folders are the layout too (a Mapillary download of
  // validation/ alone).
  if (!HasLayout(spec.root, layout) && !(IsFolder(spec.image_dir) && IsFolder(spec.mask_dir)))
    RefuseRoot(spec, layout);
  std::vector<std::pair<fs::path, fs::path>> folders = {{spec.image_dir, spec.mask_dir}};
  folders.insert(folders.end(), spec.more_folders.begin(), spec.more_folders.end());
  for (const auto& [images, masks] : folders) {
    if (IsFolder(images) && IsFolder(masks)) continue;
    // The split's folder that is missing, not one inside it
    // (Train/Urban rather than Train/Urban/images_png).
    fs::path missing = IsFolder(images) ? masks : images;
    while (!IsFolder(missing.parent_path()) && missing.parent_path() != spec.root &&
           missing.has_relative_path())
      missing = missing.parent_path();
    const std::string split = "no split '" + missing.filename().string() + "': ";
    if (std::optional<std::string> why = NotWhatWasExpected(missing, true))
      Refuse(spec, split + *why);
    std::string found =
        missing.parent_path().filename().string() + "/ has " + Entries(missing.parent_path(), 8);
    if (std::optional<std::string_view> other = FittingPreset(spec.root, spec.name)) {
      found += ": this looks like the " + std::string(*other) + " layout, try --dataset " +
               std::string(*other);
    }
    Refuse(spec, split + found);
  }
  // camvid32's classes are the colours of this file (its mask_colors).
  if (spec.name == "camvid32") {
    std::error_code error;
    if (!fs::is_regular_file(spec.root / "label_colors.txt", error)) {
      Refuse(spec,
             "no label_colors.txt here, which the camvid32 layout reads its classes from; "
             "found " +
                 Entries(spec.root, 8));
    }
  }
  if (!spec.list_file.empty()) {
    std::error_code error;
    if (!fs::is_regular_file(spec.list_file, error)) {
      // A FIFO, a device or a folder of that name is there: saying "no
      // fifo.txt" and then listing it would deny what the user sees.
      const std::string split = "no split '" + spec.list_file.stem().string() + "': ";
      if (std::optional<std::string> why = NotWhatWasExpected(spec.list_file, false))
        Refuse(spec, split + *why);
      Refuse(spec, split + "no " + spec.list_file.filename().string() + " in " +
                       spec.list_file.parent_path().string() + ", which has " +
                       Entries(spec.list_file.parent_path(), 8));
    }
  }
}

}  // namespace dataset
}  // namespace segfeed
