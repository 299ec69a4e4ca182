#include <algorithm>
#include <charconv>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "pipeline/loader_state.h"
#include "segfeed/errors.h"

// A LoaderState's fields read from their values (LoaderState::Read(), for
// the text form and Python's dict) and their ranges checked
// (CheckStateFields(), for every state a Loader resumes from).

namespace segfeed {
namespace {

using pipeline::IsResumableVersion;
using pipeline::kQuotedChars;
using pipeline::QuotedExcerpt;
using pipeline::UnresumableVersionError;

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
    IntegerField<int64_t>{"epoch", &LoaderState::epoch, 0, pipeline::kLastEpoch},
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
  if (!IsInteger(value)) return QuotedExcerpt(value.text);
  if (value.text.size() <= kQuotedChars) return value.text;
  return value.text.substr(0, kQuotedChars) + "... (" + std::to_string(value.text.size()) +
         " digits)";
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
  if (error != std::errc() || end != text.data() + text.size() || !IsResumableVersion(version)) {
    throw UnresumableVersionError(ShownValue(value));
  }
  return version;
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
      throw ConfigError(prefix + "must list <pair id>=<error kind> (got " + QuotedExcerpt(item) +
                        ")");
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

}  // namespace

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
  pipeline::CheckStateFields(state, source);
  return state;
}

namespace pipeline {

void CheckStateFields(const LoaderState& state, std::string_view source) {
  const std::string prefix = std::string(source) + ": ";
  if (!IsResumableVersion(state.version))
    throw UnresumableVersionError(std::to_string(state.version));
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

}  // namespace pipeline
}  // namespace segfeed
