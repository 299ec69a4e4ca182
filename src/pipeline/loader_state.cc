#include "pipeline/loader_state.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fnv1a_digest.h"
#include "segfeed/errors.h"
#include "segfeed/option_table.h"

namespace segfeed::pipeline {
namespace {

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

std::string QuotedExcerpt(std::string_view text) {
  // Appended rather than "'" + std::string(...): GCC 12 sees a bogus overlap
  // in the latter once it is a function of its own (-Wrestrict).
  std::string quoted = "'";
  quoted += text.substr(0, kQuotedChars);
  if (text.size() > kQuotedChars) quoted += "...";
  return quoted + "'";
}

bool IsResumableVersion(int version) {
  return version >= LoaderState::kOldestResumable && version <= LoaderState::kVersion;
}

ConfigError UnresumableVersionError(std::string_view version) {
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

std::string ListingDigest(const source::SampleSource& source) {
  Fnv1aDigest digest;
  const auto add_member = [&](source::SampleId id, source::Member member) {
    const std::optional<int64_t> bytes = source.MemberSize(id, member);
    digest.Add(std::filesystem::path(source.MemberName(id, member)).filename().string());
    digest.Add(std::string_view("\0", 1));
    digest.Add(bytes ? std::to_string(*bytes) : "-1");
    digest.Add(std::string_view("\0", 1));
  };
  const auto count = static_cast<source::SampleId>(source.sample_count());
  for (source::SampleId id = 0; id < count; ++id) {
    digest.Add(source.Key(id));
    digest.Add(std::string_view("\0", 1));
    add_member(id, source::Member::kImage);
    add_member(id, source::Member::kMask);
    digest.Add("\n");
  }
  return digest.Hex();
}

void CheckResumes(const LoaderState& saved, const LoaderState& current, const DatasetSpec& spec) {
  if (!IsResumableVersion(saved.version))
    throw UnresumableVersionError(std::to_string(saved.version));
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

}  // namespace segfeed::pipeline
