#include "remote/shard_index_fetch.h"

#include <memory>
#include <string>
#include <utility>

#include "source/shard_index.h"

namespace segfeed::remote {

Result<std::vector<uint8_t>> FetchShardIndex(RangeClient* client, const ObjectUrl& index) {
  std::shared_ptr<Transfer> fetched = client->Start(index, 0, 0, source::ShardIndexIntact);
  fetched->Wait();
  const Status& status = fetched->status();
  if (!status.ok()) {
    if (!fetched->body_wrong()) return status.error();
    const std::string url = index.ToString();
    return Error{ErrorKind::kIoError, url,
                 "the index is damaged: each of the " + std::to_string(fetched->attempts()) +
                     " bodies fetched was short or failed the index's own digest (upload the "
                     "index again; `segfeed index SHARDS...` writes it anew)"};
  }
  const std::span<const uint8_t> body = fetched->body();
  return std::vector<uint8_t>(body.begin(), body.end());
}

}  // namespace segfeed::remote
