#include "options/object_storage_options.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "options/byte_count.h"
#include "options/option_kinds.h"
#include "options/option_values.h"

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

// A folder on local disk; the empty string (None, CLI "none") for none.
class PathOption final : public OptionSpec {
 public:
  PathOption(const Declaration& declaration, Field<std::string> field)
      : OptionSpec(declaration), field_(field) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override {
    if (std::holds_alternative<std::monostate>(value)) return field_(options).clear();
    const OptionScalar* scalar = AsScalar(value);
    const std::string* text = scalar ? std::get_if<std::string>(scalar) : nullptr;
    if (!text) WrongType(name(), "a folder path or None", Describe(value));
    if (text->empty()) FailCheck(name(), "a folder path, or None for none", "''");
    field_(options) = *text;
  }
  void Parse(LoaderOptions& options, std::string_view text) const override {
    if (text == "none") return field_(options).clear();
    Set(options, OptionValue(std::in_place_type<OptionScalar>, std::string(text)));
  }
  OptionValue Get(const LoaderOptions& options) const override {
    const std::string& path = Read(field_, options);
    if (path.empty()) return std::monostate{};
    return OptionValue(std::in_place_type<OptionScalar>, path);
  }
  std::string Text(const LoaderOptions& options) const override {
    const std::string& path = Read(field_, options);
    return path.empty() ? "none" : path;
  }
  std::string Accepts() const override { return "a folder path, or none"; }

 private:
  Field<std::string> field_;
};

// A byte count >= 0: an integer, or text with a unit ("10GiB", "512MB").
class BytesOption final : public OptionSpec {
 public:
  BytesOption(const Declaration& declaration, Field<int64_t> field)
      : OptionSpec(declaration), field_(field) {}

  void Set(LoaderOptions& options, const OptionValue& value) const override {
    const OptionScalar* scalar = AsScalar(value);
    if (const std::string* text = scalar ? std::get_if<std::string>(scalar) : nullptr)
      return Parse(options, *text);
    int64_t bytes = 0;
    if (!scalar || std::holds_alternative<bool>(*scalar) || !ToInt(name(), *scalar, bytes))
      WrongType(name(), "a number of bytes", Describe(value));
    field_(options) = bytes;
    Check(options);
  }
  void Parse(LoaderOptions& options, std::string_view text) const override {
    const std::optional<int64_t> bytes = ParseByteCount(text);
    if (!bytes) FailCheck(name(), Accepts(), Quoted(text));
    field_(options) = *bytes;
  }
  OptionValue Get(const LoaderOptions& options) const override {
    return OptionValue(std::in_place_type<OptionScalar>, Read(field_, options));
  }
  std::string Text(const LoaderOptions& options) const override {
    return ByteCountText(Read(field_, options));
  }
  std::string Accepts() const override {
    return "bytes >= 0: an integer, or with a unit (10GiB, 512MiB, 1GB, KiB, MB, KB, B)";
  }
  void Check(const LoaderOptions& options) const override {
    const int64_t bytes = Read(field_, options);
    if (bytes < 0) FailCheck(name(), "bytes >= 0", std::to_string(bytes));
  }

 private:
  Field<int64_t> field_;
};

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
  t.push_back(std::make_unique<PathOption>(
      OptionSpec::Declaration{"cache_dir", "cache-dir", kLoader, K::kPath,
                              "object storage: a local folder that keeps what was fetched, "
                              "for the next epoch and the other ranks of this node",
                              kNotInStream, "no cache"},
      SEGFEED_FIELD(cache_dir)));
  t.push_back(std::make_unique<BytesOption>(
      OptionSpec::Declaration{"cache_limit", "cache-limit", kLoader, K::kBytes,
                              "object storage: the most the cache_dir holds, for every "
                              "process sharing it (least recently used go first)",
                              kNotInStream},
      SEGFEED_FIELD(cache_limit)));
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
