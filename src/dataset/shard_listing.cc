#include "dataset/shard_listing.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "dataset/brace_pattern.h"
#include "dataset/remote_listing.h"
#include "remote/object_url.h"
#include "segfeed/errors.h"
#include "segfeed/option_table.h"
#include "source/shard_index.h"
#include "source/shard_samples.h"
#include "source/shards_source.h"

// The fourth dataset rule: tar shards. A shard dataset is listed by its
// index when there is one (one file read, its shards stat'ed) and scanned
// otherwise; either way the result is a catalog in the order the shards
// were given, served by a ShardsSource.

namespace segfeed {
namespace {

namespace fs = std::filesystem;

bool EndsWith(const std::string& text, std::string_view end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

bool HoldsIndex(const fs::path& folder) {
  std::error_code error;
  return fs::is_directory(folder, error) && fs::exists(folder / source::kShardIndexFileName, error);
}

fs::path Comparable(const fs::path& path) {
  std::error_code error;
  fs::path canonical = fs::weakly_canonical(path, error);
  return error ? path.lexically_normal() : canonical;
}

// Whether the index's shards are `shards`, in that order.
bool ListsShards(const source::ShardCatalog& catalog, const std::vector<fs::path>& shards) {
  if (catalog.shards().size() != shards.size()) return false;
  for (size_t i = 0; i < shards.size(); ++i) {
    if (Comparable(catalog.shards()[i].path) != Comparable(shards[i])) return false;
  }
  return true;
}

// The index's catalog, and in `original_keys` the dataset's keys of the
// samples whose member key was encoded.
source::ShardCatalog ReadIndex(const fs::path& index,
                               source::ShardsSource::OriginalKeys* original_keys) {
  source::ShardIndexDataset dataset;
  Result<source::ShardCatalog> catalog =
      source::ReadShardIndex(index, source::ShardCheck::kSizes, &dataset);
  if (!catalog.ok()) throw FileError(catalog.error());
  *original_keys = std::move(dataset.original_keys);
  return std::move(catalog).value();
}

// Scans the shards, saying once on stderr how long that took and how to
// avoid it next time.
source::ShardCatalog ScanCatalog(const std::vector<fs::path>& shards, Dataset* dataset) {
  const auto start = std::chrono::steady_clock::now();
  source::ShardListing listing = source::ScanShards(shards);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr,
               "segfeed: no index for %zu shard%s; scanned them in %.2f s (%zu samples); "
               "`segfeed index SHARDS...` writes one\n",
               shards.size(), shards.size() == 1 ? "" : "s", seconds,
               listing.catalog.sample_count());
  // The samples a damaged or missing shard lost are the dataset's
  // problems (io_error): the Loader refuses them under on_bad_file = fail
  // and streams the rest under skip; check lists them.
  for (Error& problem : listing.problems) dataset->problems.push_back(std::move(problem));
  for (Error& error : listing.errors) dataset->problems.push_back(std::move(error));
  return std::move(listing.catalog);
}

bool IsRemote(const DatasetSpec& spec) { return remote::IsObjectUrl(spec.shard_index.string()); }

// The options table's entries among what an index records.
std::vector<std::pair<std::string, std::string>> KnownOptions(
    std::vector<std::pair<std::string, std::string>> recorded) {
  std::vector<std::pair<std::string, std::string>> options;
  for (auto& [name, value] : recorded) {
    if (FindOption(name) != nullptr) options.emplace_back(std::move(name), std::move(value));
  }
  return options;
}

// The index object of a dataset in object storage, fetched when its spec
// is made with the environment's credentials (anonymously without any, as
// a public bucket reads) and handed on in the spec, so that listing it
// does not fetch it again; null when it cannot be fetched: the listing
// tries again with the loader's options and says why.
std::shared_ptr<const DatasetSpec::FetchedShardIndex> FetchIndexForSpec(
    const std::string& index, const std::string& endpoint_url) {
  try {
    ObjectStorageOptions options;
    try {
      return dataset::FetchRemoteIndex(index, options, endpoint_url);
    } catch (const ConfigError&) {
      options.no_sign_request = true;  // no credentials anywhere
      return dataset::FetchRemoteIndex(index, options, endpoint_url);
    }
  } catch (const std::exception&) {
    return nullptr;
  }
}

// The options the shards' index records (`segfeed pack` writes the
// dataset's label options there), as DatasetSpec::options: the front ends
// apply them before the user's, as they apply a preset's. Only the option
// table's names (the index also says how photos were written); none when
// there is no index or it cannot be read (the listing says why).
std::vector<std::pair<std::string, std::string>> IndexOptions(const DatasetSpec& spec) {
  source::ShardIndexDataset dataset;
  if (IsRemote(spec)) {
    const std::span<const uint8_t> fetched = dataset::FetchedIndexBytes(spec);
    if (fetched.empty() || !source::DecodeShardIndex(fetched, spec.shard_index, &dataset).ok())
      return {};
    return KnownOptions(std::move(dataset.options));
  }
  const fs::path index = !spec.shard_index.empty() ? spec.shard_index
                         : spec.shards.empty()
                             ? fs::path()
                             : spec.shards.front().parent_path() / source::kShardIndexFileName;
  std::error_code error;
  if (index.empty() || !fs::exists(index, error)) return {};
  if (!source::ReadShardIndex(index, source::ShardCheck::kSizes, &dataset).ok()) return {};
  return KnownOptions(std::move(dataset.options));
}

}  // namespace

bool IsShardData(const fs::path& data) {
  const std::string text = data.string();
  return remote::IsObjectUrl(text) || EndsWith(text, ".tar") || EndsWith(text, ".sfidx") ||
         dataset::HasBraces(text) || HoldsIndex(data);
}

DatasetSpec DatasetSpec::Shards(const fs::path& data, const std::string& endpoint_url) {
  DatasetSpec spec;
  spec.name = "shards";
  const std::string text = data.string();
  if (!endpoint_url.empty() && !remote::IsObjectUrl(text))
    throw ConfigError("endpoint_url is for shards in object storage (s3://bucket/prefix/), not " +
                      text);
  if (remote::IsObjectUrl(text)) {
    spec.shard_index = dataset::RemoteIndexUrl(text);
    spec.endpoint_url = endpoint_url;
    spec.fetched_shard_index = FetchIndexForSpec(spec.shard_index.string(), endpoint_url);
  } else if (EndsWith(text, ".sfidx")) {
    spec.shard_index = data;
  } else if (dataset::HasBraces(text) || EndsWith(text, ".tar")) {
    for (std::string& name : dataset::ExpandBraces(text)) spec.shards.emplace_back(std::move(name));
  } else if (HoldsIndex(data)) {
    spec.shard_index = data / source::kShardIndexFileName;
  } else {
    throw ConfigError(text + " is not a shard dataset: give a folder holding " +
                      source::kShardIndexFileName + ", an index, tars or a brace pattern " +
                      "(train-{000000..000031}.tar)");
  }
  spec.root =
      spec.shard_index.empty() ? spec.shards.front().parent_path() : spec.shard_index.parent_path();
  spec.options = IndexOptions(spec);
  return spec;
}

DatasetSpec DatasetSpec::Shards(std::vector<fs::path> tars) {
  DatasetSpec spec;
  spec.name = "shards";
  spec.shards = std::move(tars);
  if (!spec.shards.empty()) spec.root = spec.shards.front().parent_path();
  spec.options = IndexOptions(spec);
  return spec;
}

namespace dataset {

bool IsShardSpec(const DatasetSpec& spec) {
  return spec.name == "shards" || !spec.shards.empty() || !spec.shard_index.empty();
}

void ListShards(const DatasetSpec& spec, const ObjectStorageOptions& object_storage,
                Dataset* dataset) {
  if (IsRemote(spec)) {
    dataset->shard_source =
        OpenRemoteShards(spec.shard_index.string(), object_storage, spec.endpoint_url,
                         FetchedIndexBytes(spec, object_storage));
    return;
  }
  source::ShardCatalog catalog;
  source::ShardsSource::OriginalKeys original_keys;
  if (!spec.shard_index.empty()) {
    catalog = ReadIndex(spec.shard_index, &original_keys);
  } else if (spec.shards.empty()) {
    throw ConfigError("the shards rule needs shards or a shard index");
  } else {
    const fs::path beside = spec.shards.front().parent_path() / source::kShardIndexFileName;
    std::error_code error;
    bool indexed = false;
    if (fs::exists(beside, error)) {
      // An index of other shards (a subset of them, say) says nothing about
      // these; one of these that is stale is refused, naming the shard.
      catalog = ReadIndex(beside, &original_keys);
      indexed = ListsShards(catalog, spec.shards);
    }
    if (!indexed) {
      original_keys.clear();
      catalog = ScanCatalog(spec.shards, dataset);
    }
  }
  dataset->shard_source =
      std::make_shared<source::ShardsSource>(std::move(catalog), std::move(original_keys));
}

}  // namespace dataset
}  // namespace segfeed
