#pragma once

// The kinds of option the table is made of (OptionKind), each an
// OptionSpec that knows one field of LoaderOptions: how to set it from a
// front end's value or CLI text, check it, and spell it. Checks throw
// ConfigError "<field> must be ... (got ...)"; a value of the wrong type is
// an OptionTypeError.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "segfeed/option_table.h"
#include "segfeed/options.h"

namespace segfeed::options {

// Field accessors: plain functions, so entries are cheap and stateless.
template <typename T>
using Field = T& (*)(LoaderOptions&);

template <typename T>
const T& Read(Field<T> field, const LoaderOptions& options) {
  // The accessor only names the field; nothing is written through it here.
  return field(const_cast<LoaderOptions&>(options));
}

// An integer field of type T (int, int64_t, uint64_t) within [min, max].
template <typename T>
class IntOption final : public OptionSpec {
 public:
  IntOption(const Declaration& declaration, Field<T> field, int64_t min, T max,
            std::string_view note = {})
      : OptionSpec(declaration), field_(field), min_(min), max_(max), note_(note) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override;
  void Parse(LoaderOptions& options, std::string_view text) const override;
  OptionValue Get(const LoaderOptions& options) const override;
  std::string Text(const LoaderOptions& options) const override;
  std::string Accepts() const override;
  void Check(const LoaderOptions& options) const override;

 private:
  std::string Requirement() const;
  Field<T> field_;
  int64_t min_;
  T max_;
  std::string_view note_;  // appended to the requirement: ", 0 meaning one per core"
};

// A double field within [min, max], finite.
class NumberOption final : public OptionSpec {
 public:
  NumberOption(const Declaration& declaration, Field<double> field, double min, double max)
      : OptionSpec(declaration), field_(field), min_(min), max_(max) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override;
  void Parse(LoaderOptions& options, std::string_view text) const override;
  OptionValue Get(const LoaderOptions& options) const override;
  std::string Text(const LoaderOptions& options) const override;
  std::string Accepts() const override;
  void Check(const LoaderOptions& options) const override;

 private:
  Field<double> field_;
  double min_, max_;
};

class BoolOption final : public OptionSpec {
 public:
  BoolOption(const Declaration& declaration, Field<bool> field)
      : OptionSpec(declaration), field_(field) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override;
  void Parse(LoaderOptions& options, std::string_view text) const override;
  OptionValue Get(const LoaderOptions& options) const override;
  std::string Text(const LoaderOptions& options) const override;
  std::string Accepts() const override { return "true or false"; }

 private:
  Field<bool> field_;
};

// An enum field; `choices` are the values allowed here (a subset of the
// enum's names for masks), `names` all of the enum's, for messages.
template <typename Enum>
class ChoiceOption final : public OptionSpec {
 public:
  ChoiceOption(const Declaration& declaration, Field<Enum> field,
               std::span<const OptionChoice> choices, std::span<const OptionChoice> names)
      : OptionSpec(declaration), field_(field), choices_(choices), names_(names) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override;
  void Parse(LoaderOptions& options, std::string_view text) const override;
  OptionValue Get(const LoaderOptions& options) const override;
  std::string Text(const LoaderOptions& options) const override;
  std::string Accepts() const override;
  void Check(const LoaderOptions& options) const override;
  std::span<const OptionChoice> Choices() const override { return choices_; }

 private:
  Field<Enum> field_;
  std::span<const OptionChoice> choices_, names_;
};

// A random op's (min, max) range and its switch: None switches the op off.
// Messages name the option as the user gives it ("scale_range's min"), not
// the struct's field (scale_factor).
class RangeOption final : public OptionSpec {
 public:
  RangeOption(const Declaration& declaration, Field<UniformRange> range, Field<bool> enabled,
              double lo, double hi)
      : OptionSpec(declaration), range_(range), enabled_(enabled), lo_(lo), hi_(hi) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override;
  void Parse(LoaderOptions& options, std::string_view text) const override;
  OptionValue Get(const LoaderOptions& options) const override;
  std::string Text(const LoaderOptions& options) const override;
  std::string Accepts() const override;
  void Check(const LoaderOptions& options) const override;

 private:
  Field<UniformRange> range_;
  Field<bool> enabled_;
  double lo_, hi_;
};

// Three per-channel numbers (mean, std); checked only while normalising.
class TripleOption final : public OptionSpec {
 public:
  TripleOption(const Declaration& declaration, Field<std::array<float, 3>> field,
               Field<bool> active, bool must_be_positive)
      : OptionSpec(declaration),
        field_(field),
        active_(active),
        must_be_positive_(must_be_positive) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override;
  void Parse(LoaderOptions& options, std::string_view text) const override;
  OptionValue Get(const LoaderOptions& options) const override;
  std::string Text(const LoaderOptions& options) const override;
  std::string Accepts() const override;
  void Check(const LoaderOptions& options) const override;

 private:
  Field<std::array<float, 3>> field_;
  Field<bool> active_;  // checked only while this is on (normalize)
  bool must_be_positive_;
};

// An image colour (fill_value): one level for every channel, or R, G, B.
class FillColorOption final : public OptionSpec {
 public:
  FillColorOption(const Declaration& declaration, Field<FillColor> field)
      : OptionSpec(declaration), field_(field) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override;
  void Parse(LoaderOptions& options, std::string_view text) const override;
  OptionValue Get(const LoaderOptions& options) const override;
  std::string Text(const LoaderOptions& options) const override;
  std::string Accepts() const override { return "a level in [0, 255], or three levels R,G,B"; }
  void Check(const LoaderOptions& options) const override;

 private:
  Field<FillColor> field_;
};

// The output size: output_width and output_height. Messages name the
// option ("size's width"), as the user gives it.
class SizeOption final : public OptionSpec {
 public:
  explicit SizeOption(const Declaration& declaration) : OptionSpec(declaration) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override;
  void Parse(LoaderOptions& options, std::string_view text) const override;
  OptionValue Get(const LoaderOptions& options) const override;
  std::string Text(const LoaderOptions& options) const override;
  std::string Accepts() const override;
  void Check(const LoaderOptions& options) const override { CheckSize(options.augment); }
  static void CheckSize(const AugmentOptions& augment);
};

}  // namespace segfeed::options
