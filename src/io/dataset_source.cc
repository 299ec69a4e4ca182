#include "io/dataset_source.h"

#include "source/files_source.h"

namespace segfeed::io {

std::shared_ptr<source::SampleSource> DatasetSource(const Dataset& dataset) {
  if (dataset.shard_source) return dataset.shard_source;
  return std::make_shared<source::FilesSource>(dataset.pairs);
}

}  // namespace segfeed::io
