#pragma once

#include "segfeed/dataset.h"

namespace segfeed::dataset {

// ListDataset() for a spec with more_folders: each (image folder, mask
// folder) pair listed by the folder rule, image_dir and mask_dir first,
// the pairs kept by their paths under spec.root in that order, the
// problems and ignored files of all of them. ConfigError for a list file,
// an empty root, or a folder outside root.
Dataset ListAcrossFolders(const DatasetSpec& spec);

}  // namespace segfeed::dataset
