#pragma once

#include <sys/types.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace segfeed::output {

// A file a command writes its result into (--json FILE, --out FILE.png, each
// file of --dump DIR), checked before the command starts its work and
// written only once the content is complete, so that nothing already on disk
// is lost to a failed or interrupted run:
//
// - A regular file, new or existing, is written under a unique hidden
//   temporary name in the same folder, flushed to disk, and renamed over the
//   target only when every byte is written. On any failure the temporary
//   file is removed and the previous file, if any, stays as it was. Through
//   a symbolic link, the file it points to is replaced and the link kept.
// - An existing file that is not a regular file (a device such as /dev/null
//   or /dev/full, a FIFO, a socket) is written directly, never renamed over.
// - The file that is this process's standard output or error (/dev/stdout,
//   or the file stdout is redirected to) is written through that stream,
//   after what the command printed there.
//
// Every write, flush and close is checked. Not thread-safe; cheap to copy.
class OutputFile {
 public:
  // Checks that `path` can be written as described above: it is not a
  // folder; an existing file is writable; for a regular file, its folder
  // exists and is writable. Touches nothing. Returns an io_error naming
  // `path` and the reason.
  static Result<OutputFile> Prepare(const std::filesystem::path& path);

  // Writes `bytes` as the whole content of the file. Returns an io_error
  // naming the path and the reason ("cannot write: No space left on device").
  Status Write(std::string_view bytes) const;

  // The path as the user gave it.
  const std::filesystem::path& path() const { return path_; }

 private:
  enum class Kind { kReplace, kDirect, kStream };
  OutputFile() = default;
  Status Replace(std::string_view bytes) const;
  Status WriteDirectly(std::string_view bytes) const;
  Status WriteStream(std::string_view bytes) const;

  std::filesystem::path path_;
  Kind kind_ = Kind::kReplace;
  std::filesystem::path target_;         // kReplace: the file renamed over (links resolved)
  std::optional<mode_t> existing_mode_;  // kReplace: permissions the new file keeps
  std::FILE* stream_ = nullptr;          // kStream: stdout or stderr
};

// Checks, before a run, a folder a command will create if needed and write
// files into: it is a writable folder, or the closest existing folder above
// it is writable. Returns an io_error naming `dir` and the reason.
Status CheckOutputFolder(const std::filesystem::path& dir);

// Refuses `path` when it is one of `folders` or anywhere below one of them,
// comparing paths with symbolic links, "." and ".." resolved. The io_error
// names `path` and the folder.
Status CheckOutsideFolders(const std::filesystem::path& path,
                           const std::vector<std::filesystem::path>& folders);

}  // namespace segfeed::output
