#include "options/object_storage_options.h"

#include <algorithm>
#include <limits>
#include <string>

#include "options/option_kinds.h"

namespace segfeed::options {
namespace {

#define SEGFEED_FIELD(path)         \
  +[](LoaderOptions & o) -> auto& { \
    return o.object_storage.path;   \
  }

constexpr OptionGroup kLoader = OptionGroup::kLoader;
constexpr auto kIntMax = std::numeric_limits<int>::max();
using K = OptionKind;

// Not in the stream: how bytes are fetched never changes them.
constexpr bool kNotInStream = false;

}  // namespace

void AddObjectStorageOptions(std::vector<std::unique_ptr<const OptionSpec>>& t) {
  t.push_back(std::make_unique<BoolOption>(
      OptionSpec::Declaration{"no_sign_request", "no-sign-request", kLoader, K::kBool,
                              "object storage: read s3:// unsigned (a public bucket)",
                              kNotInStream},
      SEGFEED_FIELD(no_sign_request)));
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{"remote_attempts", "remote-attempts", kLoader, K::kInt,
                              "object storage: attempts per request (5xx, 429, resets, "
                              "timeouts and bad bodies are retried)",
                              kNotInStream},
      SEGFEED_FIELD(attempts), 1, 100));
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{"remote_connect_timeout_ms", "remote-connect-timeout-ms", kLoader,
                              K::kInt, "object storage: connection set-up limit, ms", kNotInStream},
      SEGFEED_FIELD(connect_timeout_ms), 1, kIntMax));
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{"remote_stall_timeout_ms", "remote-stall-timeout-ms", kLoader,
                              K::kInt,
                              "object storage: a transfer silent this long is retried, ms "
                              "(whole seconds)",
                              kNotInStream},
      SEGFEED_FIELD(stall_timeout_ms), 1000, kIntMax));
  t.push_back(std::make_unique<IntOption<int64_t>>(
      OptionSpec::Declaration{"read_ahead_bytes", "read-ahead-bytes", kLoader, K::kInt,
                              "object storage: bytes read ahead of decoding (in the plan)",
                              kNotInStream},
      SEGFEED_FIELD(read_ahead_bytes), 1, std::numeric_limits<int64_t>::max()));
  t.push_back(std::make_unique<IntOption<int>>(
      OptionSpec::Declaration{"remote_connections", "remote-connections", kLoader, K::kInt,
                              "object storage: connections at most", kNotInStream},
      SEGFEED_FIELD(connections), 1, 1024));
}

#undef SEGFEED_FIELD

bool IsObjectStorageOption(std::string_view name) {
  // From the entries themselves, so a new one reaches every command.
  static const std::vector<std::string> names = [] {
    std::vector<std::unique_ptr<const OptionSpec>> entries;
    AddObjectStorageOptions(entries);
    std::vector<std::string> result;
    for (const auto& entry : entries) result.emplace_back(entry->name());
    return result;
  }();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace segfeed::options
