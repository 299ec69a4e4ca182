#pragma once

// Writes one tar shard with libarchive's writer: ustar headers, and a PAX
// extended header only for a name ustar cannot hold (over 100 bytes, or not
// ASCII), so that the readers that stumble on PAX (DALI#3640) meet it only
// where nothing else works. Every header field that is not the member's own
// is fixed (uid/gid 0, no user or group name, mode 0644, mtime 0), so the
// same members give the same bytes on any machine, at any time.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

#include "result.h"

struct archive;

namespace segfeed::pack {

// Bytes a member of `name` and `size` bytes takes in a shard this writer
// writes: its ustar header (plus a PAX header for a long or non-ASCII name,
// estimated), and its data padded to 512-byte blocks. For deciding where a
// shard ends; the shard's real size is what the file holds.
int64_t TarMemberBytes(std::string_view name, int64_t size);

// One shard being written. Not thread-safe; not copyable. Destroying a
// writer that was not finished abandons the file (the caller removes it).
class TarShardWriter {
 public:
  TarShardWriter() = default;
  TarShardWriter(const TarShardWriter&) = delete;
  TarShardWriter& operator=(const TarShardWriter&) = delete;
  ~TarShardWriter();

  // Creates `path` (it must not exist). io_error naming it otherwise.
  Status Open(const std::filesystem::path& path);
  // Appends a regular member; an error names the shard and the member.
  Status Add(std::string_view name, std::span<const uint8_t> bytes);
  // Writes the end-of-archive blocks, fsyncs and closes the file.
  Status Finish();

 private:
  Error WriteError(std::string_view member, std::string_view what) const;
  void Abandon();

  std::filesystem::path path_;
  int fd_ = -1;
  struct archive* archive_ = nullptr;
};

}  // namespace segfeed::pack
