#include "options/enum_names.h"

#include "segfeed/errors.h"
#include "segfeed/memory.h"
#include "segfeed/options.h"

namespace segfeed {
namespace options {

const OptionChoice kElementTypeChoices[5] = {{"uint8", static_cast<int>(ElementType::kUint8)},
                                             {"float16", static_cast<int>(ElementType::kFloat16)},
                                             {"float32", static_cast<int>(ElementType::kFloat32)},
                                             {"int32", static_cast<int>(ElementType::kInt32)},
                                             {"int64", static_cast<int>(ElementType::kInt64)}};
const std::span<const OptionChoice> kImageTypeChoices(kElementTypeChoices, 3);
const OptionChoice kMaskTypeChoices[4] = {{"uint8", static_cast<int>(ElementType::kUint8)},
                                          {"float32", static_cast<int>(ElementType::kFloat32)},
                                          {"int32", static_cast<int>(ElementType::kInt32)},
                                          {"int64", static_cast<int>(ElementType::kInt64)}};
const OptionChoice kMaskModeChoices[2] = {{"binary", static_cast<int>(MaskMode::kBinary)},
                                          {"labels", static_cast<int>(MaskMode::kLabels)}};
const OptionChoice kMaskForegroundChoices[2] = {
    {"nonzero", static_cast<int>(MaskForeground::kNonzero)},
    {"luminance", static_cast<int>(MaskForeground::kLuminance)}};
const OptionChoice kLayoutChoices[2] = {{"nhwc", static_cast<int>(Layout::kNHWC)},
                                        {"nchw", static_cast<int>(Layout::kNCHW)}};
const OptionChoice kFillModeChoices[2] = {{"constant", static_cast<int>(FillMode::kConstant)},
                                          {"reflect", static_cast<int>(FillMode::kReflect)}};
const OptionChoice kResizeModeChoices[4] = {
    {"stretch", static_cast<int>(ResizeMode::kStretch)},
    {"keep_ratio", static_cast<int>(ResizeMode::kKeepRatio)},
    {"short_side", static_cast<int>(ResizeMode::kShortSide)},
    {"long_side", static_cast<int>(ResizeMode::kLongSide)}};
const OptionChoice kCropPlacementChoices[2] = {
    {"random", static_cast<int>(CropPlacement::kRandom)},
    {"center", static_cast<int>(CropPlacement::kCenter), "centre"}};
const OptionChoice kJpegWarningsChoices[2] = {
    {"error", static_cast<int>(JpegWarnings::kAreErrors)},
    {"ignore", static_cast<int>(JpegWarnings::kAreIgnored)}};
const OptionChoice kDecodeColourChoices[2] = {{"rgb", static_cast<int>(DecodeColour::kRgb)},
                                              {"ycbcr", static_cast<int>(DecodeColour::kYCbCr)}};
const OptionChoice kColourModelChoices[2] = {{"hsv", static_cast<int>(ColourModel::kHsv)},
                                             {"linear", static_cast<int>(ColourModel::kLinear)}};
const OptionChoice kOnBadFileChoices[2] = {{"fail", static_cast<int>(OnBadFile::kFail)},
                                           {"skip", static_cast<int>(OnBadFile::kSkip)}};
// "val" was the CLI's spelling before the vocabulary had one; still accepted.
const OptionChoice kSubsetChoices[3] = {
    {"all", static_cast<int>(Subset::kAll)},
    {"train", static_cast<int>(Subset::kTrain)},
    {"validation", static_cast<int>(Subset::kValidation), "val"}};
// "true" and "false" were shuffle's values while it was a bool; still accepted.
const OptionChoice kShuffleChoices[3] = {{"global", static_cast<int>(Shuffle::kGlobal), "true"},
                                         {"shards", static_cast<int>(Shuffle::kShards)},
                                         {"none", static_cast<int>(Shuffle::kNone), "false"}};
const OptionChoice kPinnedModeChoices[4] = {{"auto", static_cast<int>(PinnedMode::kAuto)},
                                            {"cuda", static_cast<int>(PinnedMode::kCuda)},
                                            {"mlock", static_cast<int>(PinnedMode::kMlock)},
                                            {"off", static_cast<int>(PinnedMode::kOff)}};

std::string ChoiceList(std::span<const OptionChoice> choices) {
  std::string names;
  for (const OptionChoice& choice : choices) {
    if (!names.empty()) names += ", ";
    names += choice.name;
  }
  return names;
}

int ParseChoice(std::string_view what, std::span<const OptionChoice> choices,
                std::string_view text) {
  for (const OptionChoice& choice : choices) {
    if (text == choice.name || (!choice.alias.empty() && text == choice.alias)) return choice.value;
  }
  throw ConfigError(std::string(what) + " must be one of " + ChoiceList(choices) + " (got '" +
                    std::string(text) + "')");
}

std::string_view ChoiceName(std::span<const OptionChoice> choices, int value) {
  for (const OptionChoice& choice : choices) {
    if (choice.value == value) return choice.name;
  }
  return "unknown";
}

}  // namespace options

using options::ChoiceName;
using options::ParseChoice;

std::string_view ElementTypeName(ElementType type) {
  return ChoiceName(options::kElementTypeChoices, static_cast<int>(type));
}
std::string_view LayoutName(Layout layout) {
  return ChoiceName(options::kLayoutChoices, static_cast<int>(layout));
}
std::string_view FillModeName(FillMode mode) {
  return ChoiceName(options::kFillModeChoices, static_cast<int>(mode));
}
std::string_view JpegWarningsName(JpegWarnings warnings) {
  return ChoiceName(options::kJpegWarningsChoices, static_cast<int>(warnings));
}
std::string_view DecodeColourName(DecodeColour colour) {
  return ChoiceName(options::kDecodeColourChoices, static_cast<int>(colour));
}
std::string_view ColourModelName(ColourModel model) {
  return ChoiceName(options::kColourModelChoices, static_cast<int>(model));
}
std::string_view MaskModeName(MaskMode mode) {
  return ChoiceName(options::kMaskModeChoices, static_cast<int>(mode));
}
std::string_view MaskForegroundName(MaskForeground rule) {
  return ChoiceName(options::kMaskForegroundChoices, static_cast<int>(rule));
}
std::string_view OnBadFileName(OnBadFile policy) {
  return ChoiceName(options::kOnBadFileChoices, static_cast<int>(policy));
}
std::string_view SubsetName(Subset subset) {
  return ChoiceName(options::kSubsetChoices, static_cast<int>(subset));
}
std::string_view ShuffleName(Shuffle shuffle) {
  return ChoiceName(options::kShuffleChoices, static_cast<int>(shuffle));
}
std::string_view PinnedModeName(PinnedMode mode) {
  return ChoiceName(options::kPinnedModeChoices, static_cast<int>(mode));
}

ElementType ParseElementType(std::string_view text) {
  return static_cast<ElementType>(ParseChoice("element type", options::kElementTypeChoices, text));
}
Layout ParseLayout(std::string_view text) {
  return static_cast<Layout>(ParseChoice("layout", options::kLayoutChoices, text));
}
FillMode ParseFillMode(std::string_view text) {
  return static_cast<FillMode>(ParseChoice("fill_mode", options::kFillModeChoices, text));
}
JpegWarnings ParseJpegWarnings(std::string_view text) {
  return static_cast<JpegWarnings>(
      ParseChoice("jpeg_warnings", options::kJpegWarningsChoices, text));
}
DecodeColour ParseDecodeColour(std::string_view text) {
  return static_cast<DecodeColour>(
      ParseChoice("decode_colour", options::kDecodeColourChoices, text));
}
ColourModel ParseColourModel(std::string_view text) {
  return static_cast<ColourModel>(ParseChoice("colour_model", options::kColourModelChoices, text));
}
MaskMode ParseMaskMode(std::string_view text) {
  return static_cast<MaskMode>(ParseChoice("mask_mode", options::kMaskModeChoices, text));
}
MaskForeground ParseMaskForeground(std::string_view text) {
  return static_cast<MaskForeground>(
      ParseChoice("mask_foreground", options::kMaskForegroundChoices, text));
}
OnBadFile ParseOnBadFile(std::string_view text) {
  return static_cast<OnBadFile>(ParseChoice("on_bad_file", options::kOnBadFileChoices, text));
}
Subset ParseSubset(std::string_view text) {
  return static_cast<Subset>(ParseChoice("subset", options::kSubsetChoices, text));
}
Shuffle ParseShuffle(std::string_view text) {
  return static_cast<Shuffle>(ParseChoice("shuffle", options::kShuffleChoices, text));
}
PinnedMode ParsePinnedMode(std::string_view text) {
  return static_cast<PinnedMode>(ParseChoice("pinned", options::kPinnedModeChoices, text));
}

}  // namespace segfeed
