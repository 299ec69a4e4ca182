#pragma once

// A batch as the bytes a trainer would see, for the tests that compare
// streams (threads, ranks, resumes, files against shards) byte for byte.

#include <cstdint>
#include <string>
#include <vector>

#include "segfeed/loader.h"

namespace segfeed::testing {

// Every byte a trainer would see in one batch, plus its ids.
inline std::string BatchBytes(const Lease& lease) {
  std::string bytes(static_cast<const char*>(lease.images().data), lease.images().bytes());
  bytes.append(static_cast<const char*>(lease.masks().data), lease.masks().bytes());
  for (uint32_t id : lease.sample_ids())
    bytes.append(reinterpret_cast<const char*>(&id), sizeof id);
  return bytes;
}

// The batches left in the loader's current epoch, as BatchBytes.
inline std::vector<std::string> Remaining(Loader& loader) {
  std::vector<std::string> batches;
  while (auto lease = loader.Next()) batches.push_back(BatchBytes(*lease));
  return batches;
}

}  // namespace segfeed::testing
