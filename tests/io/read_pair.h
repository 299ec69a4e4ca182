#pragma once

#include "io/pair_reader.h"
#include "segfeed/dataset.h"
#include "source/files_source.h"

namespace segfeed::io {

// Reads `pair` with `reader` as the loader reads a sample: through a
// FilesSource, here of a listing that holds this one pair.
template <typename... Target>
Status ReadPair(PairReader& reader, const SamplePair& pair, const Target&... target) {
  PairList pairs{std::filesystem::path()};
  pairs.AddPaths(pair.image_path.native(), pair.mask_path.native());
  source::FilesSource source(pairs);
  return reader.Read(source, 0, target...);
}

}  // namespace segfeed::io
