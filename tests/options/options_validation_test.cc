#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "segfeed/errors.h"
#include "segfeed/options.h"

namespace segfeed {
namespace {

// Runs `validate` and returns the ConfigError message ("" if none thrown).
std::string MessageOf(const std::function<void()>& validate) {
  try {
    validate();
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

std::string AugmentMessage(const std::function<void(AugmentOptions&)>& change) {
  AugmentOptions options;
  change(options);
  return MessageOf([&] { ValidateAugmentOptions(options); });
}

std::string OutputMessage(const std::function<void(OutputOptions&)>& change) {
  OutputOptions options;
  change(options);
  return MessageOf([&] { ValidateOutputOptions(options); });
}

TEST(OptionsValidationTest, DefaultsAreValid) {
  EXPECT_NO_THROW(ValidateAugmentOptions(AugmentOptions{}));
  EXPECT_NO_THROW(ValidateOutputOptions(OutputOptions{}));
}

TEST(OptionsValidationTest, AugmentMessagesNameFieldAndValue) {
  EXPECT_EQ(AugmentMessage([](auto& o) { o.output_width = 0; }),
            "size's width must be in [1, 16384] (got 0)");
  EXPECT_EQ(AugmentMessage([](auto& o) { o.output_height = -5; }),
            "size's height must be in [1, 16384] (got -5)");
  EXPECT_EQ(AugmentMessage([](auto& o) { o.flip_lr_probability = 1.5; }),
            "flip_lr_probability must be in [0, 1] (got 1.5)");
  EXPECT_EQ(AugmentMessage([](auto& o) { o.flip_ud_probability = -0.1; }),
            "flip_ud_probability must be in [0, 1] (got -0.1)");
  EXPECT_EQ(AugmentMessage([](auto& o) { o.rotation_fraction = 0.7; }),
            "rotation_fraction must be in [0, 0.5] (got 0.7)");
  EXPECT_EQ(AugmentMessage([](auto& o) {
              o.contrast_factor = {0.6, 0.4};
            }),
            "contrast must be an interval with min <= max (got [0.6, 0.4])");
  EXPECT_EQ(AugmentMessage([](auto& o) { o.saturation_factor.min = -1; }),
            "saturation's min must be in [0, 1e+06] (got -1)");
  EXPECT_EQ(AugmentMessage([](auto& o) { o.brightness_delta.max = 2; }),
            "brightness's max must be in [-1, 1] (got 2)");
  EXPECT_EQ(AugmentMessage([](auto& o) { o.hue_delta.min = -0.75; }),
            "hue's min must be in [-0.5, 0.5] (got -0.75)");
  EXPECT_EQ(AugmentMessage([](auto& o) { o.fill_value = 300; }),
            "fill_value must be in [0, 255] (got 300)");
  EXPECT_EQ(AugmentMessage([](auto& o) { o.fill_value = FillColor(0, -1, 0); }),
            "fill_value[1] must be in [0, 255] (got -1)");
  EXPECT_EQ(AugmentMessage([](auto& o) { o.rotation_fraction = std::nan(""); }),
            "rotation_fraction must be finite (got nan)");
}

// A range is named as the user gives it (scale_range, contrast), never by
// the struct's field (scale_factor, contrast_factor), which no front end
// spells.
TEST(OptionsValidationTest, RangeMessagesNameTheOptionNotTheField) {
  EXPECT_EQ(AugmentMessage([](auto& o) {
              o.scale_factor = {0.0, 1.0};
            }),
            "scale_range's min must be in [0.05, 20] (got 0)");
  EXPECT_EQ(AugmentMessage([](auto& o) {
              o.scale_factor = {0.5, 30.0};
            }),
            "scale_range's max must be in [0.05, 20] (got 30)");
  EXPECT_EQ(AugmentMessage([](auto& o) {
              o.scale_factor = {2.0, 1.0};
            }),
            "scale_range must be an interval with min <= max (got [2, 1])");
  for (const std::string field :
       {"scale_factor", "contrast_factor", "brightness_delta", "saturation_factor", "hue_delta"}) {
    for (const std::string& message :
         {AugmentMessage([](auto& o) { o.scale_factor.min = -1; }),
          AugmentMessage([](auto& o) { o.contrast_factor.max = -1; }),
          AugmentMessage([](auto& o) { o.brightness_delta.min = 5; }), AugmentMessage([](auto& o) {
            o.saturation_factor = {3, 2};
          }),
          AugmentMessage([](auto& o) { o.hue_delta.max = 1; })}) {
      ASSERT_NE(message, "");
      EXPECT_EQ(message.find(field), std::string::npos) << message;
    }
  }
}

std::string LoaderMessage(const std::function<void(LoaderOptions&)>& change) {
  LoaderOptions options;
  change(options);
  return MessageOf([&] { ValidateLoaderOptions(options); });
}

void Labels(LoaderOptions& o) {
  o.decode.mask_mode = MaskMode::kLabels;
  o.decode.num_classes = 5;
  o.output.mask_dtype = ElementType::kInt64;
}

// An option that does nothing in the mode given is refused, naming it, the
// mode, and the value, as num_classes is in binary mode; at its default it
// is accepted in every mode, and where it does something it is accepted.
TEST(OptionsValidationTest, OptionsThatDoNothingInTheModeAreRefused) {
  EXPECT_EQ(LoaderMessage([](auto& o) { o.augment.crop_max_class_ratio = 0.75; }),
            "crop_max_class_ratio applies to label maps: set mask_mode='labels', or leave it at 1 "
            "(got 0.75 with mask_mode='binary')");
  EXPECT_EQ(LoaderMessage([](auto& o) {
              Labels(o);
              o.augment.crop = CropPlacement::kCenter;
              o.augment.crop_max_class_ratio = 0.5;
            }),
            "crop_max_class_ratio applies to random windows: set crop='random', or leave it at 1 "
            "(got 0.5 with crop='center')");
  EXPECT_EQ(LoaderMessage([](auto& o) {
              Labels(o);
              o.decode.mask_foreground = MaskForeground::kLuminance;
            }),
            "mask_foreground applies to binary masks: label maps keep their class ids (got "
            "'luminance' with mask_mode='labels')");
  EXPECT_EQ(LoaderMessage([](auto& o) {
              Labels(o);
              o.decode.mask_threshold = 100;
            }),
            "mask_threshold applies to binary masks: label maps keep their class ids (got 100 "
            "with mask_mode='labels')");
  EXPECT_EQ(LoaderMessage([](auto& o) { o.decode.mask_threshold = 100; }),
            "mask_threshold applies to mask_foreground='luminance': set it, or leave the "
            "threshold out (got 100 with mask_foreground='nonzero')");
  EXPECT_EQ(LoaderMessage([](auto& o) { o.decode.ignore_index = -100; }),
            "ignore_index applies to label maps: set mask_mode='labels' (got -100 with "
            "mask_mode='binary')");
  // The decode side alone (segfeed check's path) refuses the same.
  DecodeOptions decode;
  decode.mask_threshold = 100;
  EXPECT_NE(MessageOf([&] { ValidateDecodeOptions(decode); }).find("mask_threshold applies"),
            std::string::npos);

  // Where they do something, and at their defaults, they are accepted.
  EXPECT_EQ(LoaderMessage([](auto&) {}), "");
  EXPECT_EQ(LoaderMessage(Labels), "");
  EXPECT_EQ(LoaderMessage([](auto& o) {
              Labels(o);
              o.augment.crop_max_class_ratio = 0.75;
            }),
            "");
  EXPECT_EQ(LoaderMessage([](auto& o) {
              o.decode.mask_foreground = MaskForeground::kLuminance;
              o.decode.mask_threshold = 100;
            }),
            "");
  EXPECT_EQ(LoaderMessage([](auto& o) {
              Labels(o);
              o.decode.ignore_index = -100;
            }),
            "");
  EXPECT_EQ(LoaderMessage([](auto& o) {
              o.augment.crop = CropPlacement::kCenter;  // --no-augment's window, ratio at 1
            }),
            "");
}

TEST(OptionsValidationTest, DisabledOpsStillNeedSaneRanges) {
  EXPECT_NE(AugmentMessage([](auto& o) {
              o.hue_enabled = false;
              o.hue_delta = {0.3, -0.3};
            }),
            "");
}

// Reflect mirrors only past an edge the window reaches without padding, so
// a photo stretched or fitted and then only shrunk leaves it nothing: the
// loader refuses the combination, naming the options. Where the window can
// reach an edge (a scale up to 1 or more, a crop of short_side or
// long_side), or a rotation is off (reflect still repeats the edge pixel for
// an upscale's taps), it stands.
TEST(OptionsValidationTest, ReflectWithNothingToMirrorIsRefused) {
  const std::string refused =
      "fill_mode must be constant with resize keep_ratio and scale_range below 1 (got reflect, "
      "scale_range max 0.8): the window pads past every edge of the photo, and padding is "
      "fill_value, so nothing is left to mirror";
  auto shrunk = [](ResizeMode resize, double max) {
    return [=](AugmentOptions& o) {
      o.fill_mode = FillMode::kReflect;
      o.resize = resize;
      o.scale_enabled = true;
      o.scale_factor = {0.5, max};
    };
  };
  EXPECT_EQ(AugmentMessage(shrunk(ResizeMode::kKeepRatio, 0.8)), refused);
  EXPECT_NE(AugmentMessage(shrunk(ResizeMode::kStretch, 0.8)).find("with resize stretch"),
            std::string::npos);
  LoaderOptions loader;
  shrunk(ResizeMode::kKeepRatio, 0.8)(loader.augment);
  EXPECT_EQ(MessageOf([&] { ValidateLoaderOptions(loader); }), refused);
  EXPECT_EQ(AugmentMessage(shrunk(ResizeMode::kKeepRatio, 1.0)), "");
  EXPECT_EQ(AugmentMessage(shrunk(ResizeMode::kShortSide, 0.8)), "");
  EXPECT_EQ(AugmentMessage(shrunk(ResizeMode::kLongSide, 0.8)), "");
  EXPECT_EQ(AugmentMessage([&](AugmentOptions& o) {
              shrunk(ResizeMode::kKeepRatio, 0.8)(o);
              o.fill_mode = FillMode::kConstant;
            }),
            "");
  EXPECT_EQ(AugmentMessage([&](AugmentOptions& o) {
              shrunk(ResizeMode::kKeepRatio, 0.8)(o);
              o.scale_enabled = false;
            }),
            "");
  EXPECT_EQ(AugmentMessage([](AugmentOptions& o) {
              o.fill_mode = FillMode::kReflect;
              o.rotation_fraction = 0;
            }),
            "");
}

TEST(OptionsValidationTest, OutputMessagesNameFieldAndValue) {
  EXPECT_EQ(OutputMessage([](auto& o) {
              o.image_dtype = ElementType::kUint8;
              o.normalize = true;
            }),
            "normalize must be false for image_dtype uint8 (mean/std need a float type) "
            "(got true)");
  EXPECT_EQ(OutputMessage([](auto& o) {
              o.normalize = true;
              o.std[1] = 0.0f;
            }),
            "std[1] must be > 0 (got 0)");
  EXPECT_EQ(OutputMessage([](auto& o) {
              o.normalize = true;
              o.mean[2] = INFINITY;
            }),
            "mean[2] must be finite (got inf)");
  EXPECT_EQ(OutputMessage([](auto& o) { o.image_dtype = static_cast<ElementType>(7); }),
            "image_dtype must be one of uint8, float16, float32 (got 7)");
  EXPECT_EQ(OutputMessage([](auto& o) { o.mask_dtype = ElementType::kFloat16; }),
            "mask_dtype must be one of uint8, float32, int32, int64 (got float16)");
  // Normalisation values are not checked while normalize is off.
  EXPECT_EQ(OutputMessage([](auto& o) { o.std[0] = 0.0f; }), "");
}

TEST(OptionsValidationTest, DtypeSizesAndNames) {
  EXPECT_EQ(ElementBytes(ElementType::kUint8), 1);
  EXPECT_EQ(ElementBytes(ElementType::kFloat16), 2);
  EXPECT_EQ(ElementBytes(ElementType::kFloat32), 4);
  EXPECT_EQ(ElementBytes(static_cast<ElementType>(7)), 0);
  EXPECT_EQ(ElementTypeName(ElementType::kFloat16), "float16");
  EXPECT_EQ(ElementTypeName(ElementType::kFloat32), "float32");
  EXPECT_EQ(LayoutName(Layout::kNCHW), "nchw");
  EXPECT_EQ(ElementTypeName(ElementType::kUint8), "uint8");
}

}  // namespace
}  // namespace segfeed
