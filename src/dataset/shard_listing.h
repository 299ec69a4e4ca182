#pragma once

#include "segfeed/dataset.h"
#include "segfeed/options.h"

namespace segfeed::dataset {

// Whether `spec` describes tar shards (DatasetSpec's fourth rule).
bool IsShardSpec(const DatasetSpec& spec);

// Lists a shard dataset into `dataset`: its shard_source, from the index
// (spec.shard_index, or the one beside spec.shards when it lists exactly
// those shards) or, without one, from a scan of the shards, timed and
// reported on stderr once. The scan's unpaired samples (a photo without a
// mask, ...) become dataset->problems, as a folder's unpaired files do, and
// so do the samples it lost (io_error: a shard that cannot be opened or
// read to its end keeps the samples read whole before the damage; the
// sample being read, and the shard with the offset where reading stopped,
// are named) and keys found in two places (duplicate_key). Throws
// FileError for an index that cannot be read or no longer matches its
// shards (naming the shard and `segfeed index`); ConfigError for a spec
// without shards. A shard_index that is an object URL (s3://, http(s)://)
// is read from the store with `object_storage`'s settings
// (dataset/remote_listing.h).
void ListShards(const DatasetSpec& spec, const ObjectStorageOptions& object_storage,
                Dataset* dataset);

}  // namespace segfeed::dataset
