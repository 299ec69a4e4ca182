#pragma once

// DALI's per-shard index (the text `tools/wds2idx.py` writes, version
// v1.2), so that fn.readers.webdataset reads segfeed's shards without
// indexing them again. The format: a first line "v1.2 <samples>", then one
// line per sample (a run of members with one key, WebDataset's rule), each
// member of the run as four space-separated fields "<extension> <data
// offset> <size> <member name>".

#include <string>

#include "result.h"
#include "source/tar_scan.h"

namespace segfeed::pack {

// The index text of the shard `scan` read (regular members only, in tar
// order). An error, naming the shard and the member, when a member name
// holds whitespace (the format's separator) or the scan did not reach the
// shard's end.
Result<std::string> DaliIndexText(const source::TarScan& scan);

}  // namespace segfeed::pack
