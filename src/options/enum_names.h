#pragma once

#include <span>
#include <string>
#include <string_view>

#include "segfeed/option_table.h"

namespace segfeed::options {

// The spellings of every enum option, one list per enum: the *Name() and
// Parse*() functions and the option table are all made from these, so a
// value is spelled the same way everywhere.
extern const OptionChoice kElementTypeChoices[5];              // every name, for ElementTypeName()
extern const std::span<const OptionChoice> kImageTypeChoices;  // images: no integers
extern const OptionChoice kMaskTypeChoices[4];                 // masks: no float16
extern const OptionChoice kMaskModeChoices[2];
extern const OptionChoice kMaskForegroundChoices[2];
extern const OptionChoice kLayoutChoices[2];
extern const OptionChoice kFillModeChoices[2];
extern const OptionChoice kResizeModeChoices[4];
extern const OptionChoice kCropPlacementChoices[2];
extern const OptionChoice kJpegWarningsChoices[2];
extern const OptionChoice kDecodeColourChoices[2];
extern const OptionChoice kColourModelChoices[2];
extern const OptionChoice kOnBadFileChoices[2];
extern const OptionChoice kSubsetChoices[3];
extern const OptionChoice kShuffleChoices[3];
extern const OptionChoice kPinnedModeChoices[4];

// "uint8, float16, float32".
std::string ChoiceList(std::span<const OptionChoice> choices);

// The value whose name or alias is `text`; ConfigError "<what> must be one
// of <names> (got '<text>')" otherwise.
int ParseChoice(std::string_view what, std::span<const OptionChoice> choices,
                std::string_view text);

// The name of `value`, or "unknown".
std::string_view ChoiceName(std::span<const OptionChoice> choices, int value);

}  // namespace segfeed::options
