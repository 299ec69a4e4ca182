#include "pipeline/loader_state.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <system_error>

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
// An excerpt of a malformed line in a message, at most this long.
constexpr size_t kQuotedChars = 40;

std::string Quoted(std::string_view text) {
  std::string quoted = "'" + std::string(text.substr(0, kQuotedChars));
  if (text.size() > kQuotedChars) quoted += "...";
  return quoted + "'";
}

bool Resumable(int version) {
  return version >= LoaderState::kOldestResumable && version <= LoaderState::kVersion;
}

ConfigError VersionError(int version) {
  std::string message =
      "not a segfeed loader state of version " + std::to_string(LoaderState::kOldestResumable) +
      " to " + std::to_string(LoaderState::kVersion) + " (got version " + std::to_string(version);
  if (version >= 1 && version < LoaderState::kOldestResumable) {
    message +=
        ": a state of an earlier segfeed, whose digests this version computes differently; "
        "resume it with that segfeed, or start the epoch again";
  }
  return ConfigError(message + ")");
}

template <typename Int>
Int ParseInteger(std::string_view key, std::string_view text) {
  Int value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw ConfigError("loader state: " + std::string(key) +
                      " must be an integer of its range (got " + Quoted(text) + ")");
  }
  return value;
}

template <typename Int>
Int ParseAtLeast(std::string_view key, std::string_view text, Int minimum) {
  const Int value = ParseInteger<Int>(key, text);
  if (value < minimum) {
    throw ConfigError("loader state: " + std::string(key) + " must be >= " +
                      std::to_string(minimum) + " (got " + std::string(text) + ")");
  }
  return value;
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

std::vector<std::pair<uint32_t, ErrorKind>> ParseKnownBad(std::string_view text) {
  std::vector<std::pair<uint32_t, ErrorKind>> known_bad;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const size_t equals = item.find('=');
    const std::optional<ErrorKind> kind = equals == std::string_view::npos
                                              ? std::nullopt
                                              : ErrorKindFromName(item.substr(equals + 1));
    if (!kind) {
      throw ConfigError("loader state: known_bad must list <pair id>=<error kind> (got " +
                        Quoted(item) + ")");
    }
    known_bad.emplace_back(ParseInteger<uint32_t>("known_bad", item.substr(0, equals)), *kind);
    start = comma + 1;
  }
  return known_bad;
}

std::string ParseDigest(std::string_view key, std::string_view text) {
  const bool hex = text.size() == 16 && std::all_of(text.begin(), text.end(), [](char c) {
                     return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                   });
  if (!hex) {
    throw ConfigError("loader state: " + std::string(key) + " must be 16 hex digits (got " +
                      Quoted(text) + ")");
  }
  return std::string(text);
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
  LoaderState state;
  state.version = ParseInteger<int>("version", lines[0].substr(magic.size()));
  if (!Resumable(state.version)) throw VersionError(state.version);

  std::map<std::string, std::string_view, std::less<>> fields;
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
      for (const auto& option : state.options) {
        if (option.first == name)
          throw ConfigError("loader state: option " + name + " is given twice");
      }
      state.options.emplace_back(name, std::string(value.substr(equals + 1)));
      continue;
    }
    if (!fields.emplace(std::string(key), value).second) {
      throw ConfigError("loader state: " + std::string(key) + " is given twice");
    }
  }
  for (const auto& field : fields) {
    const bool known =
        std::find(std::begin(kFields), std::end(kFields), field.first) != std::end(kFields);
    const bool newer = std::find(std::begin(kSinceVersion3), std::end(kSinceVersion3),
                                 field.first) != std::end(kSinceVersion3);
    if (!known || (newer && state.version < 3)) {
      throw ConfigError("loader state: unknown field " + field.first + " (in a version " +
                        std::to_string(state.version) + " state)");
    }
  }
  const auto take = [&fields](std::string_view key) {
    const auto found = fields.find(key);
    if (found == fields.end()) throw ConfigError("loader state: no " + std::string(key));
    const std::string_view value = found->second;
    fields.erase(found);
    return value;
  };
  state.epoch = ParseAtLeast<int64_t>("epoch", take("epoch"), 0);
  state.next_batch = ParseAtLeast<int64_t>("next_batch", take("next_batch"), 0);
  state.seed = ParseInteger<uint64_t>("seed", take("seed"));
  state.rank = ParseAtLeast<int>("rank", take("rank"), 0);
  state.world_size = ParseAtLeast<int>("world_size", take("world_size"), 1);
  if (state.version >= 3) {
    state.shard_start = ParseAtLeast<int64_t>("shard_start", take("shard_start"), 0);
    state.global_position = ParseAtLeast<int64_t>("global_position", take("global_position"), 0);
    if (fields.contains("known_bad")) state.known_bad = ParseKnownBad(take("known_bad"));
  }
  state.batches_per_epoch =
      ParseAtLeast<int64_t>("batches_per_epoch", take("batches_per_epoch"), 0);
  state.options_digest = ParseDigest("options_digest", take("options_digest"));
  state.listing_digest = ParseDigest("listing_digest", take("listing_digest"));
  if (state.options.empty()) throw ConfigError("loader state: no option lines");
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

std::string ListingDigest(const PairList& pairs) {
  Fnv1aDigest digest;
  const auto add_file = [&digest](const std::filesystem::path& path) {
    std::error_code error;
    const uintmax_t bytes = std::filesystem::file_size(path, error);
    digest.Add(path.filename().string());
    digest.Add(std::string_view("\0", 1));
    digest.Add(error ? "-1" : std::to_string(bytes));
    digest.Add(std::string_view("\0", 1));
  };
  for (const SamplePair& pair : pairs) {
    digest.Add(pair.stem);
    digest.Add(std::string_view("\0", 1));
    add_file(pair.image_path);
    add_file(pair.mask_path);
    digest.Add("\n");
  }
  return digest.Hex();
}

void CheckResumes(const LoaderState& saved, const LoaderState& current, const DatasetSpec& spec) {
  if (!Resumable(saved.version)) throw VersionError(saved.version);
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
}

}  // namespace internal
}  // namespace segfeed
