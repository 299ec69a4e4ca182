#pragma once

// The two option kinds that map mask values to classes (OptionKind::kIdMap,
// kColorMap), and the checks that tie the label options together. Their CLI
// text is a comma-separated list of entries, "7:0,8:1" for label_map and
// "#800000:1,#008000:2" for mask_colors; a front end may also hand over the
// entries one by one ("7:0", or "128,0,0:1" for a colour given as numbers),
// which is how the Python binding passes a dict.

#include <string>
#include <string_view>
#include <vector>

#include "options/option_kinds.h"
#include "segfeed/option_table.h"
#include "segfeed/options.h"

namespace segfeed::options {

// DecodeOptions::label_map. A sequence of integers is the list form: entry
// i is the training id of source id i.
class LabelMapOption final : public OptionSpec {
 public:
  explicit LabelMapOption(const Declaration& declaration) : OptionSpec(declaration) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override;
  void Parse(LoaderOptions& options, std::string_view text) const override;
  OptionValue Get(const LoaderOptions& options) const override;
  std::string Text(const LoaderOptions& options) const override;
  std::string Accepts() const override;
  void Check(const LoaderOptions& options) const override;
};

// DecodeOptions::mask_colors. An entry without ":<class>" is the list form:
// the i-th colour is class i.
class MaskColorsOption final : public OptionSpec {
 public:
  explicit MaskColorsOption(const Declaration& declaration) : OptionSpec(declaration) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override;
  void Parse(LoaderOptions& options, std::string_view text) const override;
  OptionValue Get(const LoaderOptions& options) const override;
  std::string Text(const LoaderOptions& options) const override;
  std::string Accepts() const override;
  void Check(const LoaderOptions& options) const override;
};

// The rules between the label options and the mask dtype, for a whole
// LoaderOptions: labels mode needs num_classes, ignore_index is no class,
// map targets are classes or ignore_index, mask_ignore_value is no class
// without a label_map and no map source, binary mode takes none of them
// (ignore_index and mask_ignore_value but their defaults), labels mode no
// foreground rule, and the mask dtype fits the mode. ConfigError naming
// the option.
void CheckLabelOptions(const DecodeOptions& decode);
// crop_max_class_ratio does something only for label maps and random
// windows; elsewhere a value but 1 is a ConfigError naming it.
void CheckWindowOptions(const DecodeOptions& decode, const AugmentOptions& augment);
void CheckMaskDtypeForMode(const DecodeOptions& decode, const OutputOptions& output);

// "7:0,8:1" and "#800000:1": the CLI spelling of the two maps.
std::string LabelMapText(const std::vector<LabelMapEntry>& map);
std::string MaskColorsText(const std::vector<MaskColor>& colors);

}  // namespace segfeed::options
