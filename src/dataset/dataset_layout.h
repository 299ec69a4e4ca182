#pragma once

#include "segfeed/dataset.h"

namespace segfeed::dataset {

// For a preset, that `spec.root` holds the preset's layout: the folders
// its rule reads and, for a list, the split's file. Throws FileError
// (io_error, naming the root) saying what was expected and what was found
// there: another preset's layout ("try --dataset carvana"), the layout one
// folder further down ("try --data ROOT/VOC2012"), the split's file or
// folder being another kind of file ("is not a regular file (a FIFO)") or
// the splits that exist (at most 8 named, then "and N more").
// Nothing for the folder and list rules, whose folders report themselves.
void CheckLayout(const DatasetSpec& spec);

}  // namespace segfeed::dataset
