#pragma once

// Shard datasets in object storage (s3://, http(s)://): the listing's side
// of src/remote. The dataset is its index object; the catalog comes from one
// GET of it, made when the spec is (DatasetSpec::Shards()) and handed on.

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "segfeed/dataset.h"
#include "segfeed/options.h"
#include "source/sample_source.h"
#include "source/shard_index.h"

namespace segfeed::dataset {

// The index object a shard dataset URL names: the URL itself when it ends
// in ".sfidx", else index.sfidx under it as a prefix ("s3://b/voc" and
// "s3://b/voc/" give "s3://b/voc/index.sfidx"). ConfigError for tars or a
// brace pattern (an object store is read through its index) and for a URL
// that does not parse.
std::string RemoteIndexUrl(const std::string& url);

// The index object at `index_url`, fetched once with `options`' signing
// and retries (remote::FetchShardIndex(): its digest checked), for
// DatasetSpec::fetched_shard_index. Throws as OpenRemoteShards() does.
std::shared_ptr<const DatasetSpec::FetchedShardIndex> FetchRemoteIndex(
    const std::string& index_url, const ObjectStorageOptions& options,
    const std::string& endpoint_url);

// The bytes of `spec`'s index object when its spec holds them (fetched
// from its shard_index URL); empty otherwise.
std::span<const uint8_t> FetchedIndexBytes(const DatasetSpec& spec);
// The same, for a listing that reads with `options`: empty too when the
// spec's fetch was signed and these read unsigned or the other way round.
std::span<const uint8_t> FetchedIndexBytes(const DatasetSpec& spec,
                                           const ObjectStorageOptions& options);

// A RemoteShardsSource over the shards of `index_url`, with `options`'
// signing, retries and read-ahead; `fetched_index` is the index's bytes
// when they were fetched already (empty: fetched now). Throws ConfigError
// when there are no credentials (saying where they were looked for) and
// FileError when the index cannot be fetched or read (naming the URL and
// what to check).
std::shared_ptr<source::SampleSource> OpenRemoteShards(const std::string& index_url,
                                                       const ObjectStorageOptions& options,
                                                       const std::string& endpoint_url,
                                                       std::span<const uint8_t> fetched_index);

}  // namespace segfeed::dataset
