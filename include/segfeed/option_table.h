#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "segfeed/dataset.h"
#include "segfeed/export.h"
#include "segfeed/memory.h"
#include "segfeed/options.h"

namespace segfeed {

// The options vocabulary: one entry per option a user can set, from which
// every front end is made. The CLI's flags, their parsing and `--help`, the
// Python keywords and their errors, the type stub and the checkpoint digest
// of the options all walk this table, so an option is declared once, with
// its default taken from the struct's own initializer.

// Which object an option belongs to in Python (and which --help section it
// is listed under): Loader keywords, segfeed.Augment or segfeed.Decode.
enum class OptionGroup {
  kLoader,   // LoaderOptions' own fields and OutputOptions: Loader(...) keywords
  kAugment,  // AugmentOptions: segfeed.Augment(...)
  kDecode,   // DecodeOptions: segfeed.Decode(...)
};

// "loader", "augment", "decode".
SEGFEED_EXPORT std::string_view OptionGroupName(OptionGroup group);

// The shape of an option's value, which decides how each front end spells it.
enum class OptionKind {
  kInt,       // an integer within [min, max]
  kNumber,    // a finite real within [min, max]
  kBool,      // true or false; on the CLI --name / --no-name
  kChoice,    // one of a few names (an enum)
  kRange,     // a (min, max) pair, or None: the op is off
  kTriple,    // three numbers, one per channel (R, G, B)
  kColor,     // a level (0-255) for every channel, or three: R, G, B
  kSize,      // output size: one int (a square) or (height, width); CLI N or WxH
  kIdMap,     // source id -> training id: a dict or list; CLI "7:0,8:1"
  kColorMap,  // colour -> class id: a dict or list of colours; CLI "#800000:1,#008000:2"
  kNames,     // a list of names; CLI "road,car" or a file of one name per line
  kPath,      // a path on local disk, or None
  kBytes,     // a number of bytes: an int, or text with a unit ("10GiB", "512MB")
};

// One scalar as a front end hands it over. Integers above INT64_MAX (a
// 64-bit seed) come as uint64_t.
using OptionScalar = std::variant<bool, int64_t, uint64_t, double, std::string>;

// A value for one option: None (std::monostate), a scalar, or a sequence of
// scalars (a Python tuple or list). The option converts and checks it.
using OptionValue = std::variant<std::monostate, OptionScalar, std::vector<OptionScalar>>;

// One named value of an enum option and the names accepted for it. The
// first spelling is the one every output uses; an alias is accepted on input.
struct OptionChoice {
  std::string_view name;
  int value;
  std::string_view alias = {};
};

// One option. Entries live for the program's lifetime in LoaderOptionTable().
class SEGFEED_EXPORT OptionSpec {
 public:
  // What every entry declares; the kind adds its field and its bounds.
  struct Declaration {
    std::string_view name;
    std::string_view flag;
    OptionGroup group;
    OptionKind kind;
    std::string_view doc;
    bool in_stream = true;
    std::string_view none_means = {};
    bool stream_line_at_default = true;
  };
  virtual ~OptionSpec() = default;

  // The Python keyword and the key in JSON and state dicts ("batch_size").
  std::string_view name() const { return name_; }
  // The CLI flag without its dashes ("batch").
  std::string_view flag() const { return flag_; }
  OptionGroup group() const { return group_; }
  OptionKind kind() const { return kind_; }
  // One line: what the option controls.
  std::string_view doc() const { return doc_; }
  // Whether a different value gives different batch bytes. Options that do
  // not (threads, prefetch_batches, pinned, the shard) may differ when a
  // checkpoint is resumed.
  bool in_stream() const { return in_stream_; }
  // Whether StreamOptionsText() has this option's line while it holds its
  // default. False for a stream option added after checkpoints were first
  // written (mask_ignore_value): at its default it gives the batches of
  // before it existed, and leaving its line out keeps the digest of every
  // checkpoint written then, so they still resume.
  bool stream_line_at_default() const { return stream_line_at_default_; }
  // Whether None is a value (Python's default for this option) and what it
  // means, for the docs; empty when None is refused.
  std::string_view none_means() const { return none_means_; }

  // Sets the option in `options` from a front end's value, checking its
  // type and range; throws ConfigError "<name> must be ... (got ...)".
  virtual void Set(LoaderOptions& options, const OptionValue& value) const = 0;
  // Sets the option from its command-line text ("16", "512x384",
  // "0.4,0.6", "off"); the same checks and messages as Set().
  virtual void Parse(LoaderOptions& options, std::string_view text) const = 0;
  // Throws ConfigError if the value stored in `options` is outside what the
  // option allows (a struct filled in C++ rather than through Set()).
  virtual void Check(const LoaderOptions& options) const { (void)options; }
  // The value in `options`, in the form Set() accepts (None for a disabled
  // range). Get(LoaderOptions{}) is the default.
  virtual OptionValue Get(const LoaderOptions& options) const = 0;
  // The value as StreamOptionsText() writes it: Get(), except where an
  // option changed its type after checkpoints were written (shuffle, a bool
  // before it was a choice, keeps true and false for global and none), so
  // that their digests still match.
  virtual OptionValue StreamValue(const LoaderOptions& options) const { return Get(options); }
  // The value in `options` as the CLI spells it ("16", "float32", "0.4,0.6").
  virtual std::string Text(const LoaderOptions& options) const = 0;
  // What the option accepts, for --help and the docs: "integer >= 1",
  // "one of nhwc, nchw", "(min, max) in [-1, 1], or off".
  virtual std::string Accepts() const = 0;
  // The names a choice option accepts (aliases aside), in order; empty for
  // the other kinds. Front ends list them (Python's option_table()).
  virtual std::span<const OptionChoice> Choices() const { return {}; }

 protected:
  explicit OptionSpec(const Declaration& declaration)
      : name_(declaration.name),
        flag_(declaration.flag),
        group_(declaration.group),
        kind_(declaration.kind),
        doc_(declaration.doc),
        in_stream_(declaration.in_stream),
        none_means_(declaration.none_means),
        stream_line_at_default_(declaration.stream_line_at_default) {}

 private:
  std::string_view name_, flag_;
  OptionGroup group_;
  OptionKind kind_;
  std::string_view doc_;
  bool in_stream_;
  std::string_view none_means_;
  bool stream_line_at_default_;
};

// Every option, in the order --help and the docs list them.
SEGFEED_EXPORT std::span<const OptionSpec* const> LoaderOptionTable();
// The option named `name` (its keyword), or nullptr.
SEGFEED_EXPORT const OptionSpec* FindOption(std::string_view name);

// Sets every named option in `options` (unknown names are a ConfigError
// naming them), then applies the rules that tie options together (mean and
// std go together; giving them switches normalisation on; rank and
// world_size both None with RANK/WORLD_SIZE set means sharding from the
// environment), then validates the whole (ValidateLoaderOptions).
SEGFEED_EXPORT LoaderOptions
OptionsFromValues(std::span<const std::pair<std::string, OptionValue>> values);

// The options a dataset's layout implies (DatasetSpec::options, a preset's
// label options), parsed by their entries: as values for OptionsFromValues()
// (a front end puts the user's own values after them), or set on `options`
// (a C++ program sets its own after). ConfigError for an unknown name or a
// bad text.
SEGFEED_EXPORT std::vector<std::pair<std::string, OptionValue>> DatasetOptionValues(
    const DatasetSpec& dataset);
SEGFEED_EXPORT void ApplyDatasetOptions(const DatasetSpec& dataset, LoaderOptions& options);

// The stream-changing options of `options` as one canonical line each
// ("name=text"; an option added later only when it is not at its default,
// see OptionSpec::stream_line_at_default), and a 64-bit digest of them as
// 16 hex digits: two options with the same digest give the same batches.
// Checkpoints store it.
SEGFEED_EXPORT std::string StreamOptionsText(const LoaderOptions& options);
SEGFEED_EXPORT std::string StreamOptionsDigest(const LoaderOptions& options);

}  // namespace segfeed
