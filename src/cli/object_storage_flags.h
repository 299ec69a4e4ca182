#pragma once

#include <vector>

#include "cli/command_line.h"
#include "cli/loader_flags.h"
#include "segfeed/options.h"

namespace segfeed::cli {

// The entries of LoaderOptionTable() that say how shards in object storage
// are read (--no-sign-request, --remote-attempts, --read-ahead-bytes, ...),
// made into flags as LoaderFlags makes them, for a command that reads a
// dataset without building a Loader (check). Every such entry of the table
// is one, so a new one reaches check without an edit here.
class ObjectStorageFlags {
 public:
  explicit ObjectStorageFlags(CommandLine& cli);

  // The defaults with the flags given set on them; a mistake is the
  // UsageError "--<flag>: <the table's message>".
  ObjectStorageOptions Options() const;

 private:
  std::vector<TableFlag> flags_;
};

}  // namespace segfeed::cli
