// Validation of AugmentOptions and OutputOptions: every message names the
// field and the value it got, so a bad configuration is fixed at a glance.

#include <cmath>
#include <sstream>
#include <string>

#include "segfeed/errors.h"
#include "segfeed/options.h"

namespace segfeed {
namespace {

template <typename T>
[[noreturn]] void Fail(const std::string& field, const std::string& requirement, T got) {
  std::ostringstream message;
  message << field << " must be " << requirement << " (got " << got << ")";
  throw ConfigError(message.str());
}

// Builds "field.min" or "std[2]". Stream-based on purpose: GCC 12 at -O3
// reports a false -Wrestrict on `"literal" + std::string`.
std::string Name(const std::string& base, const std::string& suffix) {
  std::ostringstream name;
  name << base << suffix;
  return name.str();
}

void CheckFinite(const std::string& field, double value) {
  if (!std::isfinite(value)) Fail(field, "finite", value);
}

void CheckBetween(const std::string& field, double value, double lo, double hi) {
  CheckFinite(field, value);
  if (value < lo || value > hi) {
    std::ostringstream requirement;
    requirement << "in [" << lo << ", " << hi << "]";
    Fail(field, requirement.str(), value);
  }
}

void CheckRange(const std::string& field, const UniformRange& range, double lo, double hi) {
  CheckBetween(Name(field, ".min"), range.min, lo, hi);
  CheckBetween(Name(field, ".max"), range.max, lo, hi);
  if (range.min > range.max) {
    std::ostringstream got;
    got << "[" << range.min << ", " << range.max << "]";
    Fail(field, "an interval with min <= max", got.str());
  }
}

// Large enough for any photo we expect, small enough that width*height*4
// bytes cannot overflow the int arithmetic OpenCV uses for row sizes.
constexpr int kMaxOutputSide = 16384;

}  // namespace

void ValidateAugmentOptions(const AugmentOptions& options) {
  if (options.output_width < 1 || options.output_width > kMaxOutputSide)
    Fail("output_width", "in [1, 16384]", options.output_width);
  if (options.output_height < 1 || options.output_height > kMaxOutputSide)
    Fail("output_height", "in [1, 16384]", options.output_height);
  CheckBetween("flip_lr_probability", options.flip_lr_probability, 0.0, 1.0);
  CheckBetween("flip_ud_probability", options.flip_ud_probability, 0.0, 1.0);
  CheckBetween("rotation_fraction", options.rotation_fraction, 0.0, 0.5);
  // Ranges are checked even for disabled ops: a nonsense range is a mistake
  // whether or not it is used today.
  CheckRange("contrast_factor", options.contrast_factor, 0.0, 1e6);
  CheckRange("brightness_delta", options.brightness_delta, -1.0, 1.0);
  CheckRange("saturation_factor", options.saturation_factor, 0.0, 1e6);
  CheckRange("hue_delta", options.hue_delta, -0.5, 0.5);
  if (options.fill_mode != FillMode::kConstant && options.fill_mode != FillMode::kReflect)
    Fail("fill_mode", "kConstant or kReflect", static_cast<int>(options.fill_mode));
  if (options.fill_value < 0 || options.fill_value > 255)
    Fail("fill_value", "in [0, 255]", options.fill_value);
}

void ValidateOutputOptions(const OutputOptions& options) {
  if (ElementBytes(options.image_dtype) == 0)
    Fail("image_dtype", "uint8, float16 or float32", static_cast<int>(options.image_dtype));
  if (options.layout != Layout::kNHWC && options.layout != Layout::kNCHW)
    Fail("layout", "nhwc or nchw", static_cast<int>(options.layout));
  if (options.mask_dtype == ElementType::kFloat16)
    Fail("mask_dtype", "uint8 or float32", ElementTypeName(options.mask_dtype));
  if (ElementBytes(options.mask_dtype) == 0)
    Fail("mask_dtype", "uint8 or float32", static_cast<int>(options.mask_dtype));
  if (!options.normalize) return;
  if (options.image_dtype == ElementType::kUint8)
    Fail("normalize", "false for image_dtype uint8 (mean/std need a float type)", "true");
  for (int c = 0; c < 3; ++c) {
    std::ostringstream index;
    index << "[" << c << "]";
    CheckFinite(Name("mean", index.str()), options.mean[c]);
    CheckFinite(Name("std", index.str()), options.std[c]);
    if (!(options.std[c] > 0.0f)) Fail(Name("std", index.str()), "> 0", options.std[c]);
  }
}

std::string_view ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kUint8:
      return "uint8";
    case ElementType::kFloat16:
      return "float16";
    case ElementType::kFloat32:
      return "float32";
  }
  return "unknown";
}

std::string_view LayoutName(Layout layout) { return layout == Layout::kNHWC ? "nhwc" : "nchw"; }

}  // namespace segfeed
