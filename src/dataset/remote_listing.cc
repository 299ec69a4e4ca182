#include "dataset/remote_listing.h"

#include <algorithm>
#include <utility>

#include "remote/aws_settings.h"
#include "remote/object_url.h"
#include "remote/range_client.h"
#include "remote/remote_shards_source.h"
#include "remote/shard_index_fetch.h"
#include "segfeed/errors.h"
#include "source/disk_cache.h"

namespace segfeed::dataset {
namespace {

bool EndsWith(const std::string& text, std::string_view end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

remote::ObjectUrl Parse(const std::string& url) {
  Result<remote::ObjectUrl> parsed = remote::ParseObjectUrl(url);
  if (!parsed.ok()) throw ConfigError(parsed.error().path + ": " + parsed.error().detail);
  return std::move(parsed).value();
}

}  // namespace

std::string RemoteIndexUrl(const std::string& url) {
  if (EndsWith(url, ".sfidx")) return Parse(url).ToString();
  if (EndsWith(url, ".tar") || url.find('{') != std::string::npos) {
    throw ConfigError(url + ": shards in object storage are read through their index: give the " +
                      "prefix that holds " + source::kShardIndexFileName + " (`segfeed pack` " +
                      "and `segfeed index` write it)");
  }
  remote::ObjectUrl prefix = Parse(url);
  if (!prefix.key.empty() && prefix.key.back() != '/') prefix.key += '/';
  prefix.key += source::kShardIndexFileName;
  return prefix.ToString();
}

namespace {

remote::RangeClientOptions ClientOptions(const remote::ObjectUrl& object,
                                         const ObjectStorageOptions& options,
                                         const std::string& endpoint_url) {
  Result<remote::AwsSettings> settings =
      remote::ResolveAwsSettings(options.no_sign_request || !object.is_s3(), endpoint_url);
  if (!settings.ok()) throw ConfigError(settings.error().detail);
  remote::RangeClientOptions client;
  client.settings = std::move(settings).value();
  client.retry.attempts = options.attempts;
  client.connect_timeout_ms = options.connect_timeout_ms;
  client.stall_timeout_ms = options.stall_timeout_ms;
  client.max_connections = options.connections;
  return client;
}

}  // namespace

std::shared_ptr<const DatasetSpec::FetchedShardIndex> FetchRemoteIndex(
    const std::string& index_url, const ObjectStorageOptions& options,
    const std::string& endpoint_url) {
  const remote::ObjectUrl index = Parse(index_url);
  remote::RangeClient client(ClientOptions(index, options, endpoint_url));
  Result<std::vector<uint8_t>> fetched = remote::FetchShardIndex(&client, index);
  if (!fetched.ok()) throw FileError(fetched.error());
  return std::make_shared<const DatasetSpec::FetchedShardIndex>(DatasetSpec::FetchedShardIndex{
      index_url, std::move(fetched).value(), options.no_sign_request});
}

std::span<const uint8_t> FetchedIndexBytes(const DatasetSpec& spec) {
  const auto& fetched = spec.fetched_shard_index;
  if (!fetched || fetched->url != spec.shard_index.string()) return {};
  return fetched->bytes;
}

std::span<const uint8_t> FetchedIndexBytes(const DatasetSpec& spec,
                                           const ObjectStorageOptions& options) {
  const auto& fetched = spec.fetched_shard_index;
  if (!fetched || fetched->no_sign_request != options.no_sign_request) return {};
  return FetchedIndexBytes(spec);
}

std::shared_ptr<source::SampleSource> OpenRemoteShards(const std::string& index_url,
                                                       const ObjectStorageOptions& options,
                                                       const std::string& endpoint_url,
                                                       std::span<const uint8_t> fetched_index) {
  const remote::ObjectUrl index = Parse(index_url);
  remote::ReadAheadOptions read_ahead;
  read_ahead.read_ahead_bytes = options.read_ahead_bytes;
  std::unique_ptr<source::DiskCache> cache;
  if (!options.cache_dir.empty()) {
    Result<std::unique_ptr<source::DiskCache>> opened = source::DiskCache::Open(
        options.cache_dir, static_cast<uint64_t>(std::max<int64_t>(options.cache_limit, 0)));
    if (!opened.ok()) throw FileError(opened.error());
    cache = std::move(opened).value();
  }
  Result<std::unique_ptr<remote::RemoteShardsSource>> source =
      remote::RemoteShardsSource::Open(index, ClientOptions(index, options, endpoint_url),
                                       read_ahead, fetched_index, std::move(cache));
  if (!source.ok()) throw FileError(source.error());
  return std::shared_ptr<source::SampleSource>(std::move(source).value());
}

}  // namespace segfeed::dataset
