// The options vocabulary: every option a user can set, once. Defaults are
// the structs' own initializers (options.h); the CLI, the Python package,
// its stub and the checkpoint digest are all made from this list.

#include "segfeed/option_table.h"

#include <cstdlib>
#include <limits>
#include <memory>

#include "options/class_names_option.h"
#include "options/enum_names.h"
#include "options/label_options.h"
#include "options/object_storage_options.h"
#include "options/option_kinds.h"
#include "options/shuffle_option.h"
#include "segfeed/errors.h"

namespace segfeed {
namespace {

using options::BoolOption;
using options::ChoiceOption;
using options::ClassNamesOption;
using options::FillColorOption;
using options::IntOption;
using options::LabelMapOption;
using options::MaskColorsOption;
using options::NumberOption;
using options::RangeOption;
using options::ShuffleOption;
using options::SizeOption;
using options::TripleOption;

// The accessor of one field, as a plain function pointer.
#define SEGFEED_FIELD(path)         \
  +[](LoaderOptions & o) -> auto& { \
    return o.path;                  \
  }

constexpr OptionGroup kLoader = OptionGroup::kLoader;
constexpr OptionGroup kAugment = OptionGroup::kAugment;
constexpr OptionGroup kDecode = OptionGroup::kDecode;
constexpr auto kIntMax = std::numeric_limits<int>::max();
constexpr auto kInt64Max = std::numeric_limits<int64_t>::max();

using Entries = std::vector<std::unique_ptr<const OptionSpec>>;
using K = OptionKind;

// The loader: batches, threads, order, subset, shard, bad files, memory.
void AddLoaderOptions(Entries& t) {
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{"batch_size", "batch", kLoader, K::kInt, "samples per batch"},
      SEGFEED_FIELD(batch_size), 1, kIntMax));
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{"prefetch_batches", "prefetch", kLoader, K::kInt,
                              "batch buffers in the pool, the one the consumer holds included",
                              false},
      SEGFEED_FIELD(prefetch_batches), 1, kIntMax));
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{"threads", "threads", kLoader, K::kInt,
                              "decode threads, 0 = one per core", false},
      SEGFEED_FIELD(threads), 0, 1024, ", 0 meaning one per core"));
  t.push_back(std::make_unique<IntOption<uint64_t>>(
      OptionSpec::Declaration{"seed", "seed", kLoader, K::kInt,
                              "seeds the order, the subset split, replacements and augmentation"},
      SEGFEED_FIELD(seed), 0, std::numeric_limits<uint64_t>::max()));
  t.push_back(std::make_unique<ShuffleOption>(OptionSpec::Declaration{
      "shuffle", "shuffle", kLoader, K::kChoice,
      "the epoch's order: a new permutation of all samples (global), of shard blocks (shards: "
      "shard datasets, a window of shards at a time), or the listing order (none)"}));
  t.push_back(std::make_unique<IntOption<int>>(  // no digest line at 0: older states match
      OptionSpec::Declaration{"shard_window", "shard-window", kLoader, K::kInt,
                              "with shuffle shards: the shards read at a time (0: 4)", true, "",
                              false},
      SEGFEED_FIELD(shard_window), 0, kIntMax));
  t.push_back(std::make_unique<BoolOption>(
      OptionSpec::Declaration{"drop_last", "drop-last", kLoader, K::kBool,
                              "drop a short last batch (else it comes with fewer samples)"},
      SEGFEED_FIELD(drop_last)));
  t.push_back(std::make_unique<ChoiceOption<Subset>>(
      OptionSpec::Declaration{"subset", "subset", kLoader, K::kChoice,
                              "the part of the dataset streamed; train and validation never "
                              "overlap ('val' is accepted for validation)"},
      SEGFEED_FIELD(subset), options::kSubsetChoices, options::kSubsetChoices));
  t.push_back(std::make_unique<NumberOption>(
      OptionSpec::Declaration{"validation_fraction", "val-fraction", kLoader, K::kNumber,
                              "fraction of the pairs in the validation subset"},
      SEGFEED_FIELD(validation_fraction), 0.0, 1.0));
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{"rank", "rank", kLoader, K::kInt,
                              "this process's shard (DistributedSampler semantics)", false,
                              "with world_size None too: RANK from the environment, else 0"},
      SEGFEED_FIELD(rank), 0, kIntMax));
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{"world_size", "world-size", kLoader, K::kInt, "number of shards",
                              false, "with rank None too: WORLD_SIZE from the environment, else 1"},
      SEGFEED_FIELD(world_size), 1, kIntMax));
  t.push_back(std::make_unique<ChoiceOption<OnBadFile>>(
      OptionSpec::Declaration{"on_bad_file", "on-error", kLoader, K::kChoice,
                              "fail: stop at a bad file (or at start on images without a mask); "
                              "skip: replace bad pairs and list them"},
      SEGFEED_FIELD(on_bad_file), options::kOnBadFileChoices, options::kOnBadFileChoices));
  t.push_back(std::make_unique<ChoiceOption<PinnedMode>>(
      OptionSpec::Declaration{"pinned", "pinned", kLoader, K::kChoice,
                              "where pool buffers come from (auto: CUDA if a GPU, else mlock, "
                              "else plain)",
                              false},
      SEGFEED_FIELD(pinned), options::kPinnedModeChoices, options::kPinnedModeChoices));
}

// The batch tensors: their size and element types, and what photos decode to.
void AddTensorOptions(Entries& t) {
  t.push_back(std::make_unique<SizeOption>(OptionSpec::Declaration{
      "size", "size", kLoader, K::kSize,
      "output size in pixels; sources are resized to exactly this (CLI WxH, Python (height, "
      "width))"}));
  t.push_back(std::make_unique<ChoiceOption<ElementType>>(
      OptionSpec::Declaration{"image_dtype", "dtype", kLoader, K::kChoice,
                              "image dtype: float [0, 1] or uint8 0-255"},
      SEGFEED_FIELD(output.image_dtype), options::kImageTypeChoices, options::kElementTypeChoices));
  t.push_back(std::make_unique<ChoiceOption<ElementType>>(
      OptionSpec::Declaration{
          "mask_dtype", "mask-dtype", kLoader, K::kChoice,
          "mask dtype: binary masks exactly 0 or 1 (uint8, float32), labels class ids "
          "(uint8, int32, int64)",
          true, "float32 for binary masks, int64 for label maps"},
      SEGFEED_FIELD(output.mask_dtype), options::kMaskTypeChoices, options::kElementTypeChoices));
  t.push_back(std::make_unique<ChoiceOption<DecodeColour>>(
      OptionSpec::Declaration{"decode_colour", "decode-colour", kLoader, K::kChoice,
                              "what JPEG photos decode to: rgb (libjpeg-turbo's RGB, reference "
                              "bytes) or ycbcr (the stored planes, warped, then converted)"},
      SEGFEED_FIELD(decode.decode_colour), options::kDecodeColourChoices,
      options::kDecodeColourChoices));
}

// What the mask's pixels mean.
void AddMaskOptions(Entries& t) {
  t.push_back(std::make_unique<ChoiceOption<MaskMode>>(
      OptionSpec::Declaration{"mask_mode", "mask-mode", kLoader, K::kChoice,
                              "binary: foreground/background masks; labels: class-index label "
                              "maps (palette or grey PNG, GIF indices, or mask_colors)"},
      SEGFEED_FIELD(decode.mask_mode), options::kMaskModeChoices, options::kMaskModeChoices));
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{"num_classes", "num-classes", kLoader, K::kInt,
                              "labels mode: classes 0 .. N-1 (required there); a mask value that "
                              "is neither a class nor mask_ignore_value is label_out_of_range"},
      SEGFEED_FIELD(decode.num_classes), 0, 255, ", 0 in binary mode"));
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{"mask_ignore_value",
                              "mask-ignore-value",
                              kLoader,
                              K::kInt,
                              "labels mode: the file value of pixels without a class (VOC's 255 "
                              "boundary); ignore before label_map is looked at",
                              true,
                              {},
                              /*stream_line_at_default=*/false},
      SEGFEED_FIELD(decode.mask_ignore_value), 0, 65535, ", a palette index or grey value"));
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{"ignore_index", "ignore-index", kLoader, K::kInt,
                              "labels mode: the value written for pixels without a class "
                              "(mask_ignore_value's, unmapped ids, areas rotated in)"},
      SEGFEED_FIELD(decode.ignore_index), -1'000'000, 1'000'000));
  t.push_back(std::make_unique<LabelMapOption>(OptionSpec::Declaration{
      "label_map", "label-map", kLoader, K::kIdMap,
      "labels mode: source id -> training id (e.g. Cityscapes' ids -> train ids)", true,
      "ids are used as they are"}));
  t.push_back(std::make_unique<MaskColorsOption>(OptionSpec::Declaration{
      "mask_colors", "mask-colors", kLoader, K::kColorMap,
      "labels mode: colour -> class id for colour-coded masks", true, "no colour coding"}));
  t.push_back(std::make_unique<ClassNamesOption>(OptionSpec::Declaration{
      "class_names", "class-names", kLoader, K::kNames,
      "labels mode: the classes' names, for reports and legends (the presets name theirs)",
      /*in_stream=*/false, "the classes are unnamed"}));
}

// The image tensor's layout and its normalisation.
void AddImageTensorOptions(Entries& t) {
  t.push_back(std::make_unique<ChoiceOption<Layout>>(
      OptionSpec::Declaration{"layout", "layout", kLoader, K::kChoice,
                              "image layout (masks are always N x H x W x 1)"},
      SEGFEED_FIELD(output.layout), options::kLayoutChoices, options::kLayoutChoices));
  t.push_back(std::make_unique<BoolOption>(
      OptionSpec::Declaration{"normalize", "normalize", kLoader, K::kBool,
                              "(value - mean) / std per channel, float dtypes only; giving mean "
                              "and std switches it on"},
      SEGFEED_FIELD(output.normalize)));
  t.push_back(std::make_unique<TripleOption>(
      OptionSpec::Declaration{"mean", "mean", kLoader, K::kTriple,
                              "per-channel mean on the [0, 1] scale, with std", true,
                              "ImageNet's, used only with normalize"},
      SEGFEED_FIELD(output.mean), SEGFEED_FIELD(output.normalize), false));
  t.push_back(std::make_unique<TripleOption>(
      OptionSpec::Declaration{"std", "std", kLoader, K::kTriple,
                              "per-channel standard deviation, with mean", true,
                              "ImageNet's, used only with normalize"},
      SEGFEED_FIELD(output.std), SEGFEED_FIELD(output.normalize), true));
}

// Augmentation: one affine warp (flips, rotation, resize), then colour.
// First the warp's geometry: resize, random scale, crop, flips, rotation.
void AddGeometryOptions(Entries& t) {
  t.push_back(std::make_unique<ChoiceOption<ResizeMode>>(
      OptionSpec::Declaration{"resize", "resize", kAugment, K::kChoice,
                              "how the photo is scaled before the output window is cut: stretch "
                              "(each axis to size), keep_ratio (all of it fits, padded), "
                              "short_side / long_side (that side to size's, one factor)"},
      SEGFEED_FIELD(augment.resize), options::kResizeModeChoices, options::kResizeModeChoices));
  t.push_back(std::make_unique<RangeOption>(
      OptionSpec::Declaration{"scale_range", "scale", kAugment, K::kRange,
                              "a random scale factor per sample on top of resize (0.5,2.0 as "
                              "mmsegmentation's ratio_range)",
                              true, "no random scale"},
      SEGFEED_FIELD(augment.scale_factor), SEGFEED_FIELD(augment.scale_enabled), 0.05, 20.0));
  t.push_back(std::make_unique<ChoiceOption<CropPlacement>>(
      OptionSpec::Declaration{"crop", "crop", kAugment, K::kChoice,
                              "where the output window lies on the scaled photo: random (uniform "
                              "over every position) or center"},
      SEGFEED_FIELD(augment.crop), options::kCropPlacementChoices, options::kCropPlacementChoices));
  t.push_back(std::make_unique<NumberOption>(
      OptionSpec::Declaration{"crop_max_class_ratio", "crop-max-class-ratio", kAugment, K::kNumber,
                              "label maps, random crops: redraw the window (up to 10 draws) while "
                              "one class covers more than this share of it; 1 = off"},
      SEGFEED_FIELD(augment.crop_max_class_ratio), 0.0, 1.0));
  t.push_back(std::make_unique<NumberOption>(
      OptionSpec::Declaration{"flip_lr_probability", "flip-lr", kAugment, K::kNumber,
                              "probability of a left-right flip"},
      SEGFEED_FIELD(augment.flip_lr_probability), 0.0, 1.0));
  t.push_back(std::make_unique<NumberOption>(
      OptionSpec::Declaration{"flip_ud_probability", "flip-ud", kAugment, K::kNumber,
                              "probability of an up-down flip"},
      SEGFEED_FIELD(augment.flip_ud_probability), 0.0, 1.0));
  t.push_back(std::make_unique<NumberOption>(
      OptionSpec::Declaration{"rotation_fraction", "rotation", kAugment, K::kNumber,
                              "rotation angle ~ U(-f*360, +f*360) degrees; 0 switches it off"},
      SEGFEED_FIELD(augment.rotation_fraction), 0.0, 0.5));
}

// Then the colour ops, on the image only.
void AddColourOptions(Entries& t) {
  t.push_back(std::make_unique<RangeOption>(
      OptionSpec::Declaration{"contrast", "contrast", kAugment, K::kRange,
                              "contrast factor range, around each channel's mean", true,
                              "no contrast change"},
      SEGFEED_FIELD(augment.contrast_factor), SEGFEED_FIELD(augment.contrast_enabled), 0.0, 1e6));
  t.push_back(std::make_unique<RangeOption>(
      OptionSpec::Declaration{"brightness", "brightness", kAugment, K::kRange,
                              "brightness delta range on the [0, 1] scale", true,
                              "no brightness change"},
      SEGFEED_FIELD(augment.brightness_delta), SEGFEED_FIELD(augment.brightness_enabled), -1.0,
      1.0));
  t.push_back(std::make_unique<RangeOption>(
      OptionSpec::Declaration{"saturation", "saturation", kAugment, K::kRange,
                              "HSV saturation factor range (0 gives grey)", true,
                              "no saturation change"},
      SEGFEED_FIELD(augment.saturation_factor), SEGFEED_FIELD(augment.saturation_enabled), 0.0,
      1e6));
  t.push_back(std::make_unique<RangeOption>(
      OptionSpec::Declaration{"hue", "hue", kAugment, K::kRange,
                              "hue delta range, as a fraction of the hue circle", true,
                              "no hue change"},
      SEGFEED_FIELD(augment.hue_delta), SEGFEED_FIELD(augment.hue_enabled), -0.5, 0.5));
  t.push_back(std::make_unique<ChoiceOption<ColourModel>>(
      OptionSpec::Declaration{"colour_model", "colour-model", kAugment, K::kChoice,
                              "how the colour ops are computed: hsv (tf.image's semantics) or "
                              "linear (one 3x4 matrix in YCbCr per sample, DALI-like)"},
      SEGFEED_FIELD(augment.colour_model), options::kColourModelChoices,
      options::kColourModelChoices));
}

// What the warp samples where the window leaves the photo, and before it
// shrinks an image.
void AddEdgeOptions(Entries& t) {
  t.push_back(std::make_unique<ChoiceOption<FillMode>>(
      OptionSpec::Declaration{"fill_mode", "fill-mode", kAugment, K::kChoice,
                              "what rotation brings in from past the photo: constant (image "
                              "fill_value, mask 0 or ignore) or reflect (image and mask "
                              "mirrored); padding is always the fill"},
      SEGFEED_FIELD(augment.fill_mode), options::kFillModeChoices, options::kFillModeChoices));
  t.push_back(std::make_unique<FillColorOption>(
      OptionSpec::Declaration{"fill_value", "fill-value", kAugment, K::kColor,
                              "image colour where the window leaves the photo (padding, and "
                              "rotation under fill_mode constant): one level or R,G,B"},
      SEGFEED_FIELD(augment.fill_value)));
  t.push_back(std::make_unique<BoolOption>(
      OptionSpec::Declaration{"antialias", "antialias", kAugment, K::kBool,
                              "area-average an image that shrinks by more than 2x before the warp"},
      SEGFEED_FIELD(augment.antialias)));
}

// Decoding limits, and how a binary mask and a damaged JPEG are read.
void AddDecodeOptions(Entries& t) {
  t.push_back(std::make_unique<IntOption<int64_t>>(
      OptionSpec::Declaration{"max_pixels", "max-pixels", kDecode, K::kInt,
                              "largest width x height accepted, checked on the header"},
      SEGFEED_FIELD(decode.max_pixels), 1, kInt64Max));
  t.push_back(std::make_unique<IntOption<int64_t>>(
      OptionSpec::Declaration{
          "max_file_bytes", "max-file-bytes", kDecode, K::kInt,
          "largest file accepted; a larger one is too_large without being read"},
      SEGFEED_FIELD(decode.max_file_bytes), 1, kInt64Max));
  t.push_back(std::make_unique<IntOption<int64_t>>(
      OptionSpec::Declaration{"max_pixel_scans", "max-pixel-scans", kDecode, K::kInt,
                              "largest width x height x scans of a progressive JPEG"},
      SEGFEED_FIELD(decode.max_pixel_scans), 1, kInt64Max));
  t.push_back(std::make_unique<NumberOption>(
      OptionSpec::Declaration{"scratch_headroom", "headroom", kDecode, K::kNumber,
                              "decode budget per thread, as a multiple of what the planned photo "
                              "needs; larger pairs are too_large"},
      SEGFEED_FIELD(decode.scratch_headroom), 1.0, 1e6));
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{
          "mask_threshold", "mask-threshold", kDecode, K::kInt,
          "mask_foreground luminance: a pixel is foreground when its luminance (a grey level "
          "as 8 bits) is at least this"},
      SEGFEED_FIELD(decode.mask_threshold), 0, 255));
  t.push_back(std::make_unique<ChoiceOption<MaskForeground>>(
      OptionSpec::Declaration{"mask_foreground", "mask-foreground", kDecode, K::kChoice,
                              "binary masks, every format: nonzero: a grey level, palette index "
                              "(whatever its colour) or colour other than 0 is foreground; "
                              "luminance: pixels of luminance >= mask_threshold"},
      SEGFEED_FIELD(decode.mask_foreground), options::kMaskForegroundChoices,
      options::kMaskForegroundChoices));
  t.push_back(std::make_unique<ChoiceOption<JpegWarnings>>(
      OptionSpec::Declaration{"jpeg_warnings", "jpeg-warnings", kDecode, K::kChoice,
                              "error: refuse a JPEG that decodes only with warnings; ignore: use "
                              "its pixels"},
      SEGFEED_FIELD(decode.jpeg_warnings), options::kJpegWarningsChoices,
      options::kJpegWarningsChoices));
}

// Every entry, group after group: this order is the order of --help, of
// the Python stub and of StreamOptionsText().
Entries MakeTable() {
  Entries t;
  AddLoaderOptions(t);
  AddTensorOptions(t);
  AddMaskOptions(t);
  AddImageTensorOptions(t);
  AddGeometryOptions(t);
  AddColourOptions(t);
  AddEdgeOptions(t);
  AddDecodeOptions(t);
  options::AddObjectStorageOptions(t);
  return t;
}

#undef SEGFEED_FIELD

struct Table {
  std::vector<std::unique_ptr<const OptionSpec>> owned = MakeTable();
  std::vector<const OptionSpec*> entries = [this] {
    std::vector<const OptionSpec*> pointers;
    for (const auto& entry : owned) pointers.push_back(entry.get());
    return pointers;
  }();
};

const Table& TheTable() {
  static const Table table;
  return table;
}

bool IsNone(const OptionValue& value) { return std::holds_alternative<std::monostate>(value); }

}  // namespace

std::string_view OptionGroupName(OptionGroup group) {
  switch (group) {
    case OptionGroup::kLoader:
      return "loader";
    case OptionGroup::kAugment:
      return "augment";
    case OptionGroup::kDecode:
      return "decode";
  }
  return "unknown";
}

std::span<const OptionSpec* const> LoaderOptionTable() { return TheTable().entries; }

const OptionSpec* FindOption(std::string_view name) {
  for (const OptionSpec* option : LoaderOptionTable()) {
    if (option->name() == name) return option;
  }
  return nullptr;
}

LoaderOptions OptionsFromValues(std::span<const std::pair<std::string, OptionValue>> values) {
  LoaderOptions options;
  const OptionValue* mean = nullptr;
  const OptionValue* std_dev = nullptr;
  bool rank_none = false, world_size_none = false, mask_dtype_given = false;
  for (const auto& [name, value] : values) {
    const OptionSpec* option = FindOption(name);
    if (!option) throw ConfigError("unknown option '" + name + "'");
    if (IsNone(value) && option->none_means().empty())
      throw OptionTypeError(name + " must not be None");
    option->Set(options, value);
    if (name == "mean") mean = &value;
    if (name == "std") std_dev = &value;
    if (name == "rank") rank_none = IsNone(value);
    if (name == "world_size") world_size_none = IsNone(value);
    if (name == "mask_dtype") mask_dtype_given = !IsNone(value);
  }
  const bool mean_given = mean && !IsNone(*mean);
  const bool std_given = std_dev && !IsNone(*std_dev);
  if (mean_given != std_given) {
    throw ConfigError(std::string("mean and std go together: give both to normalise, or neither") +
                      (mean_given ? " (got mean without std)" : " (got std without mean)"));
  }
  if (mean_given) options.output.normalize = true;
  // Label maps come as int64 unless asked otherwise: what PyTorch's
  // CrossEntropyLoss takes, and Keras' sparse losses accept.
  if (options.decode.mask_mode == MaskMode::kLabels && !mask_dtype_given)
    options.output.mask_dtype = ElementType::kInt64;
  // As torchrun starts processes: the shard comes from its variables.
  if (rank_none && world_size_none && (std::getenv("RANK") || std::getenv("WORLD_SIZE")))
    options.shard_from_environment = true;
  ValidateLoaderOptions(options);
  return options;
}

void ApplyDatasetOptions(const DatasetSpec& dataset, LoaderOptions& options) {
  for (const auto& [name, text] : dataset.options) {
    const OptionSpec* option = FindOption(name);
    if (!option)
      throw ConfigError("the " + dataset.name + " layout sets an unknown option '" + name + "'");
    option->Parse(options, text);
  }
}

std::vector<std::pair<std::string, OptionValue>> DatasetOptionValues(const DatasetSpec& dataset) {
  LoaderOptions parsed;
  ApplyDatasetOptions(dataset, parsed);
  std::vector<std::pair<std::string, OptionValue>> values;
  bool names_given = false;
  for (const auto& entry : dataset.options) {
    values.emplace_back(entry.first, FindOption(entry.first)->Get(parsed));
    names_given = names_given || entry.first == "class_names";
  }
  // A colour file (camvid32's label_colors.txt) names the classes too; its
  // colours' text above does not.
  if (!names_given && !parsed.decode.class_names.empty())
    values.emplace_back("class_names", FindOption("class_names")->Get(parsed));
  return values;
}

}  // namespace segfeed
