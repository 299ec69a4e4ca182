#include "pipeline/loader_state.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>
#include <tuple>

#include "fnv1a_digest.h"
#include "segfeed/errors.h"
#include "segfeed/option_table.h"

namespace segfeed {
namespace {

// The first line of a serialized state, before its version.
constexpr std::string_view kMagic = "segfeed-loader-state";
// The key of one stream option's line: "option <name>=<text>".
constexpr std::string_view kOptionKey = "option";
// The "key value" lines of a serialized state, besides the option lines.
constexpr std::string_view kFields[] = {"epoch",
                                        "next_batch",
                                        "seed",
                                        "rank",
                                        "world_size",
                                        "shard_start",
                                        "global_position",
                                        "known_bad",
                                        "batches_per_epoch",
                                        "options_digest",
                                        "listing_digest"};
// The fields a version 2 state does not have.
constexpr std::string_view kSinceVersion3[] = {"shard_start", "global_position", "known_bad"};
// An excerpt of a malformed value in a message, at most this long.
constexpr size_t kQuotedChars = 40;

// An integer field of a state: where it lives and the values it may take.
template <typename Int>
struct IntegerField {
  std::string_view key;
  Int LoaderState::*member;
  Int minimum;
  Int maximum;
  bool since_version3 = false;
};
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int kIntMax = std::numeric_limits<int>::max();
// Every integer field, in Serialize()'s order: what both Read() and
// CheckStateFields() check, so that no form of the state escapes a range.
constexpr auto kIntegerFields = std::make_tuple(
    IntegerField<int64_t>{"epoch", &LoaderState::epoch, 0, internal::kLastEpoch},
    IntegerField<int64_t>{"next_batch", &LoaderState::next_batch, 0, kInt64Max},
    IntegerField<uint64_t>{"seed", &LoaderState::seed, 0, std::numeric_limits<uint64_t>::max()},
    IntegerField<int>{"rank", &LoaderState::rank, 0, kIntMax},
    IntegerField<int>{"world_size", &LoaderState::world_size, 1, kIntMax},
    IntegerField<int64_t>{"shard_start", &LoaderState::shard_start, 0, kInt64Max, true},
    IntegerField<int64_t>{"global_position", &LoaderState::global_position, 0, kInt64Max, true},
    IntegerField<int64_t>{"batches_per_epoch", &LoaderState::batches_per_epoch, 0, kInt64Max});

template <typename Visit>
void ForEachIntegerField(int version, Visit&& visit) {
  std::apply(
      [&](const auto&... field) {
        ((field.since_version3 && version < 3 ? void() : visit(field)), ...);
      },
      kIntegerFields);
}

std::string Quoted(std::string_view text) {
  std::string quoted = "'" + std::string(text.substr(0, kQuotedChars));
  if (text.size() > kQuotedChars) quoted += "...";
  return quoted + "'";
}

// Whether a value is an integer, of any size: digits with an optional minus.
bool IsInteger(const LoaderState::FieldValue& value) {
  using Type = LoaderState::FieldValue::Type;
  if (value.type != Type::kText) return value.type == Type::kInteger;
  const std::string_view digits = std::string_view(value.text).substr(value.text.starts_with('-'));
  return !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
}

// How a message shows a value it refuses: an integer as its digits (long
// ones cut short), text quoted, anything else as its form shows it.
std::string ShownValue(const LoaderState::FieldValue& value) {
  if (value.type == LoaderState::FieldValue::Type::kOther) return value.text;
  if (!IsInteger(value)) return Quoted(value.text);
  if (value.text.size() <= kQuotedChars) return value.text;
  return value.text.substr(0, kQuotedChars) + "... (" + std::to_string(value.text.size()) +
         " digits)";
}

bool Resumable(int version) {
  return version >= LoaderState::kOldestResumable && version <= LoaderState::kVersion;
}

ConfigError VersionError(std::string_view version) {
  std::string message =
      "not a segfeed loader state of version " + std::to_string(LoaderState::kOldestResumable) +
      " to " + std::to_string(LoaderState::kVersion) + " (got version " + std::string(version);
  if (version.size() == 1 && version[0] >= '1' &&
      version[0] < '0' + LoaderState::kOldestResumable) {
    message +=
        ": a state of an earlier segfeed, whose digests this version computes differently; "
        "resume it with that segfeed, or start the epoch again";
  }
  return ConfigError(message + ")");
}

// "[1, 2147483647]"
template <typename Int>
std::string Range(const IntegerField<Int>& field) {
  return "[" + std::to_string(field.minimum) + ", " + std::to_string(field.maximum) + "]";
}

template <typename Int>
Int ReadInteger(const IntegerField<Int>& field, const LoaderState::FieldValue& value,
                std::string_view source) {
  const std::string& text = value.text;
  Int parsed{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  const bool whole = error == std::errc() && end == text.data() + text.size();
  const bool integer = IsInteger(value);
  if (integer && whole && parsed >= field.minimum && parsed <= field.maximum) return parsed;
  // An integer too large or too small for its field, or not an integer.
  throw ConfigError(std::string(source) + ": " + std::string(field.key) + " must be " +
                    (integer ? "in " : "an integer in ") + Range(field) + " (got " +
                    ShownValue(value) + ")");
}

int ReadVersion(const LoaderState::FieldValue& value, std::string_view source) {
  if (!IsInteger(value)) {
    throw ConfigError(std::string(source) + ": version must be an integer (got " +
                      ShownValue(value) + ")");
  }
  const std::string& text = value.text;
  int version = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (error != std::errc() || end != text.data() + text.size() || !Resumable(version)) {
    throw VersionError(ShownValue(value));
  }
  return version;
}

// "3=corrupt_image,17=io_error": known_bad's text.
std::string KnownBadText(const std::vector<std::pair<uint32_t, ErrorKind>>& known_bad) {
  std::string text;
  for (const auto& [id, kind] : known_bad) {
    if (!text.empty()) text += ",";
    text += std::to_string(id);
    text += "=";
    text += ErrorKindName(kind);
  }
  return text;
}

std::vector<std::pair<uint32_t, ErrorKind>> ReadKnownBad(const LoaderState::FieldValue& value,
                                                         std::string_view source) {
  using Type = LoaderState::FieldValue::Type;
  const std::string prefix = std::string(source) + ": known_bad ";
  if (value.type != Type::kText && value.type != Type::kString) {
    throw ConfigError(prefix + "must list <pair id>=<error kind> (got " + ShownValue(value) + ")");
  }
  const std::string_view text = value.text;
  constexpr IntegerField<uint32_t> kPairId{"known_bad pair id", nullptr, 0,
                                           std::numeric_limits<uint32_t>::max()};
  std::vector<std::pair<uint32_t, ErrorKind>> known_bad;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const size_t equals = item.find('=');
    const std::optional<ErrorKind> kind = equals == std::string_view::npos
                                              ? std::nullopt
                                              : ErrorKindFromName(item.substr(equals + 1));
    if (!kind) {
      throw ConfigError(prefix + "must list <pair id>=<error kind> (got " + Quoted(item) + ")");
    }
    const LoaderState::FieldValue id{std::string(item.substr(0, equals))};
    known_bad.emplace_back(ReadInteger(kPairId, id, source), *kind);
    start = comma + 1;
  }
  return known_bad;
}

std::string ReadDigest(std::string_view key, const LoaderState::FieldValue& value,
                       std::string_view source) {
  using Type = LoaderState::FieldValue::Type;
  const std::string& text = value.text;
  const bool hex = (value.type == Type::kText || value.type == Type::kString) &&
                   text.size() == 16 && std::all_of(text.begin(), text.end(), [](char c) {
                     return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                   });
  if (!hex) {
    throw ConfigError(std::string(source) + ": " + std::string(key) +
                      " must be 16 hex digits (got " + ShownValue(value) + ")");
  }
  return text;
}

// How a message shows an option's canonical text: a choice quoted as
// Python shows a string, reals without the digits that only the digest
// needs (0.10000000000000001 is 0.1).
std::string Shown(std::string_view name, const std::string* text) {
  if (!text) return "(absent)";
  const OptionSpec* option = FindOption(name);
  if (option && option->kind() == OptionKind::kChoice) return "'" + *text + "'";
  std::string shown;
  size_t start = 0;
  while (start <= text->size()) {
    const size_t comma = std::min(text->find(',', start), text->size());
    const std::string item = text->substr(start, comma - start);
    char* end = nullptr;
    const double value = std::strtod(item.c_str(), &end);
    const bool real =
        !item.empty() && *end == '\0' && item.find_first_of(".e") != std::string::npos;
    char rounded[32];
    if (real) std::snprintf(rounded, sizeof rounded, "%.15g", value);
    shown += (start == 0 ? "" : ",") + (real ? std::string(rounded) : item);
    start = comma + 1;
  }
  return shown;
}

// "layout 'nhwc' -> 'nchw', seed 3 -> 4": the options that differ, by name.
std::string ChangedOptions(const LoaderState& saved, const LoaderState& current) {
  std::map<std::string, std::pair<const std::string*, const std::string*>> values;
  for (const auto& [name, text] : saved.options) values[name].first = &text;
  for (const auto& [name, text] : current.options) values[name].second = &text;
  std::string changed;
  for (const auto& [name, texts] : values) {
    const auto [before, after] = texts;
    if (before && after && *before == *after) continue;
    std::string shown_before = Shown(name, before), shown_after = Shown(name, after);
    if (shown_before == shown_after) shown_before = *before, shown_after = *after;
    changed += (changed.empty() ? "" : ", ") + name + " " + shown_before + " -> " + shown_after;
  }
  return changed;
}

}  // namespace

std::string LoaderState::Serialize() const {
  std::string text = std::string(kMagic) + " " + std::to_string(version) + "\n";
  const auto line = [&text](std::string_view key, const std::string& value) {
    text += std::string(key) + " " + value + "\n";
  };
  line("epoch", std::to_string(epoch));
  line("next_batch", std::to_string(next_batch));
  line("seed", std::to_string(seed));
  line("rank", std::to_string(rank));
  line("world_size", std::to_string(world_size));
  if (version >= 3) {
    line("shard_start", std::to_string(shard_start));
    line("global_position", std::to_string(global_position));
    if (!known_bad.empty()) line("known_bad", KnownBadText(known_bad));
  }
  line("batches_per_epoch", std::to_string(batches_per_epoch));
  line("options_digest", options_digest);
  line("listing_digest", listing_digest);
  for (const auto& [name, value] : options) line(kOptionKey, name + "=" + value);
  return text;
}

LoaderState LoaderState::Parse(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) lines.push_back(line);
    start = end + 1;
  }
  const std::string magic = std::string(kMagic) + " ";
  if (lines.empty() || !lines[0].starts_with(magic)) {
    throw ConfigError("not a segfeed loader state: it starts with " +
                      Quoted(lines.empty() ? std::string_view() : lines[0]) + ", not '" +
                      std::string(kMagic) + " <version>'");
  }
  Fields fields;
  fields.values["version"].text = lines[0].substr(magic.size());
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t space = lines[i].find(' ');
    const std::string_view key = lines[i].substr(0, space);
    const std::string_view value =
        space == std::string_view::npos ? std::string_view() : lines[i].substr(space + 1);
    if (value.empty()) {
      throw ConfigError("loader state: line " + std::to_string(i + 1) + " " + Quoted(lines[i]) +
                        " is not '<field> <value>'");
    }
    if (key == kOptionKey) {
      const size_t equals = value.find('=');
      if (equals == 0 || equals == std::string_view::npos) {
        throw ConfigError("loader state: line " + std::to_string(i + 1) + " " + Quoted(lines[i]) +
                          " is not 'option <name>=<value>'");
      }
      const std::string name(value.substr(0, equals));
      for (const auto& option : fields.options) {
        if (option.first == name)
          throw ConfigError("loader state: option " + name + " is given twice");
      }
      fields.options.emplace_back(name, std::string(value.substr(equals + 1)));
      continue;
    }
    if (!fields.values.emplace(std::string(key), FieldValue{std::string(value)}).second) {
      throw ConfigError("loader state: " + std::string(key) + " is given twice");
    }
  }
  return Read(fields, "loader state");
}

LoaderState LoaderState::Read(const Fields& fields, std::string_view source) {
  const std::string prefix = std::string(source) + ": ";
  const auto value_of = [&](std::string_view key) -> const FieldValue* {
    const auto found = fields.values.find(key);
    return found == fields.values.end() ? nullptr : &found->second;
  };
  const auto required = [&](std::string_view key) -> const FieldValue& {
    const FieldValue* value = value_of(key);
    if (!value) throw ConfigError(prefix + "no " + std::string(key));
    return *value;
  };
  LoaderState state;
  state.version = ReadVersion(required("version"), source);
  std::vector<std::string_view> keys;
  for (const auto& [key, value] : fields.values) keys.push_back(key);
  for (const auto& [key, why] : fields.unreadable) {
    if (key != "options") keys.push_back(key);  // the option lines, as a dict has them
  }
  for (const std::string_view key : keys) {
    const bool known = key == "version" ||
                       std::find(std::begin(kFields), std::end(kFields), key) != std::end(kFields);
    const bool newer = std::find(std::begin(kSinceVersion3), std::end(kSinceVersion3), key) !=
                       std::end(kSinceVersion3);
    if (!known || (newer && state.version < 3)) {
      throw ConfigError(prefix + "unknown field " + std::string(key) + " (in a version " +
                        std::to_string(state.version) + " state)");
    }
  }
  if (!fields.unreadable.empty()) {
    const auto& [key, why] = *fields.unreadable.begin();
    throw ConfigError(prefix + key + " " + why);
  }
  ForEachIntegerField(state.version, [&](const auto& field) {
    state.*field.member = ReadInteger(field, required(field.key), source);
  });
  if (const FieldValue* known_bad = value_of("known_bad"); known_bad && state.version >= 3) {
    state.known_bad = ReadKnownBad(*known_bad, source);
  }
  state.options_digest = ReadDigest("options_digest", required("options_digest"), source);
  state.listing_digest = ReadDigest("listing_digest", required("listing_digest"), source);
  if (fields.options.empty()) throw ConfigError(prefix + "no options");
  state.options = fields.options;
  internal::CheckStateFields(state, source);
  return state;
}

namespace internal {

std::vector<std::pair<std::string, std::string>> StreamOptionList(const LoaderOptions& options) {
  std::vector<std::pair<std::string, std::string>> list;
  const std::string text = StreamOptionsText(options);
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    const std::string_view line = std::string_view(text).substr(start, end - start);
    const size_t equals = line.find('=');
    list.emplace_back(std::string(line.substr(0, equals)), std::string(line.substr(equals + 1)));
    start = end + 1;
  }
  return list;
}

std::string ListingDigest(const SampleSource& source) {
  Fnv1aDigest digest;
  const auto add_member = [&](SampleId id, Member member) {
    const std::optional<int64_t> bytes = source.MemberSize(id, member);
    digest.Add(std::filesystem::path(source.MemberName(id, member)).filename().string());
    digest.Add(std::string_view("\0", 1));
    digest.Add(bytes ? std::to_string(*bytes) : "-1");
    digest.Add(std::string_view("\0", 1));
  };
  const auto count = static_cast<SampleId>(source.sample_count());
  for (SampleId id = 0; id < count; ++id) {
    digest.Add(source.Key(id));
    digest.Add(std::string_view("\0", 1));
    add_member(id, Member::kImage);
    add_member(id, Member::kMask);
    digest.Add("\n");
  }
  return digest.Hex();
}

void CheckStateFields(const LoaderState& state, std::string_view source) {
  const std::string prefix = std::string(source) + ": ";
  if (!Resumable(state.version)) throw VersionError(std::to_string(state.version));
  ForEachIntegerField(state.version, [&](const auto& field) {
    const auto value = state.*field.member;
    if (value < field.minimum || value > field.maximum) {
      throw ConfigError(prefix + std::string(field.key) + " must be in " + Range(field) + " (got " +
                        std::to_string(value) + ")");
    }
  });
  if (state.rank >= state.world_size) {
    throw ConfigError(prefix + "rank must be in [0, world_size " +
                      std::to_string(state.world_size) + ") (got " + std::to_string(state.rank) +
                      ")");
  }
  std::set<uint32_t> known_bad;
  for (const auto& [id, kind] : state.known_bad) {
    if (!known_bad.insert(id).second) {
      throw ConfigError(prefix + "known_bad lists pair " + std::to_string(id) + " twice");
    }
  }
}

void CheckResumes(const LoaderState& saved, const LoaderState& current, const DatasetSpec& spec) {
  if (!Resumable(saved.version)) throw VersionError(std::to_string(saved.version));
  if (saved.options_digest != current.options_digest) {
    const std::string changed = ChangedOptions(saved, current);
    throw ConfigError("the checkpoint was made with other options (" +
                      (changed.empty() ? "digest differs" : changed) +
                      "): resuming would not give the same batches");
  }
  if (saved.listing_digest != current.listing_digest) {
    throw ConfigError("the dataset changed since the checkpoint (listing digest " +
                      saved.listing_digest + " -> " + current.listing_digest +
                      ": other files, names or sizes in " + spec.image_dir.string() + " or " +
                      spec.mask_dir.string() +
                      "): the same batch indices would hold other samples");
  }
  // The digest matched: whatever else speaks of the options must agree with it.
  if (saved.options != current.options) {
    throw ConfigError("the state's option lines are not those its options_digest stands for (" +
                      ChangedOptions(saved, current) + "): it was edited");
  }
  if (saved.seed != current.seed) {
    throw ConfigError("the state's seed " + std::to_string(saved.seed) +
                      " is not the seed its options_digest stands for (" +
                      std::to_string(current.seed) + "): it was edited");
  }
}

}  // namespace internal
}  // namespace segfeed
