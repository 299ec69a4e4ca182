#pragma once

// The shard index of a dataset in object storage, fetched whole: the one
// object a RemoteShardsSource reads before anything else.

#include <cstdint>
#include <vector>

#include "remote/object_url.h"
#include "remote/range_client.h"
#include "result.h"

namespace segfeed::remote {

// One GET of the index object `index` through `client`. The index carries
// its own digest (source::ShardIndexIntact()): a body that fails it, cut
// short or changed on the way, is retried as a wrong member body is, by
// the client's RetryPolicy. Errors name the URL: after the last attempt
// with a wrong body, that the index is damaged and how many were tried;
// otherwise the client's (403: the credentials, 404: the URL).
Result<std::vector<uint8_t>> FetchShardIndex(RangeClient* client, const ObjectUrl& index);

}  // namespace segfeed::remote
