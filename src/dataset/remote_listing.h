#pragma once

// Shard datasets in object storage (s3://, http(s)://): the listing's side
// of src/remote. The dataset is its index object; the catalog comes from one
// GET of it.

#include <memory>
#include <string>

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

// A RemoteShardsSource over the shards of `index_url`, with `options`' signing,
// retries and read-ahead. Throws ConfigError when there are no
// credentials (saying where they were looked for) and FileError when the
// index cannot be fetched or read (naming the URL and what to check).
// Fills `dataset` with what the index records about the dataset.
std::shared_ptr<source::SampleSource> OpenRemoteShards(const std::string& index_url,
                                                       const ObjectStorageOptions& options,
                                                       source::ShardIndexDataset* dataset);

}  // namespace segfeed::dataset
