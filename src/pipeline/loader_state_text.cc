#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipeline/loader_state.h"
#include "segfeed/errors.h"

// LoaderState's text form: "segfeed-loader-state <version>", then one
// "<field> <value>" line per field and one "option <name>=<text>" line per
// stream option. Reading the fields and checking them is
// loader_state_fields.cc's.

namespace segfeed {
namespace {

// The first line of a serialized state, before its version.
constexpr std::string_view kMagic = "segfeed-loader-state";
// The key of one stream option's line: "option <name>=<text>".
constexpr std::string_view kOptionKey = "option";

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

}  // namespace

using pipeline::QuotedExcerpt;

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
                      QuotedExcerpt(lines.empty() ? std::string_view() : lines[0]) + ", not '" +
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
      throw ConfigError("loader state: line " + std::to_string(i + 1) + " " +
                        QuotedExcerpt(lines[i]) + " is not '<field> <value>'");
    }
    if (key == kOptionKey) {
      const size_t equals = value.find('=');
      if (equals == 0 || equals == std::string_view::npos) {
        throw ConfigError("loader state: line " + std::to_string(i + 1) + " " +
                          QuotedExcerpt(lines[i]) + " is not 'option <name>=<value>'");
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

}  // namespace segfeed
