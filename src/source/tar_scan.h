#pragma once

// Walks a tar shard once and says where each member's bytes are, so that a
// member can later be read with one pread(2) at its offset. The tar is read
// by libarchive (ustar, GNU long names and PAX extended headers alike), tar
// format only: no compression filter, since a compressed shard has no
// offsets to read members by. Every byte goes through the file-system seam
// (FileSystemInUse()), so the fault sweeps reach the scan too.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "result.h"

namespace segfeed::source {

// What a tar entry is, as far as reading samples goes.
enum class TarEntryKind : uint8_t {
  kRegular,    // a file: its bytes are at data_offset
  kFolder,     // a directory entry
  kLink,       // a symbolic or hard link entry
  kOtherType,  // a device, FIFO or other special entry
};

// "a regular file", "a folder entry", "a link entry", "a special entry".
const char* TarEntryKindName(TarEntryKind kind);

// One entry of the shard, in the order of the tar.
struct TarMember {
  // The path as the tar stores it (a PAX or GNU long name when there is
  // one), without the trailing '/' of a folder entry.
  std::string name;
  TarEntryKind kind = TarEntryKind::kRegular;
  // Where the member's bytes start in the shard and how many there are
  // (regular members only; 0 otherwise).
  int64_t data_offset = 0;
  int64_t size = 0;
  // digest.h's Digest of the member's bytes (regular members only).
  uint64_t digest = 0;
};

struct TarScan {
  std::filesystem::path shard;
  // The shard file's size, and the Digest of all its bytes (0 unless
  // the scan read it to the end).
  int64_t bytes = 0;
  uint64_t digest = 0;
  // The entries a sample can use: regular members (0-byte ones included)
  // and entries of another kind, which a sample may name as a member (its
  // read is then an error naming the kind).
  std::vector<TarMember> members;
  // Entries left out, each naming "<shard>:<member>" and why: a name that
  // leaves the shard ("../x", "/x": kOutsideRoot; nothing is ever extracted,
  // a key must not look like a path elsewhere), a name that is not UTF-8, a
  // sparse member, a member of 4 GiB or more. And entries kept but worth a
  // word: 0-byte members (kEmptyFile) and entries that are not regular
  // files.
  std::vector<Error> problems;
  // Set when the scan could not read the shard to its end: it cannot be
  // opened, it is not a plain tar, a header is damaged (bad checksum), the
  // tar ends inside a member or without its end-of-archive blocks. Names
  // the shard and the member where reading stopped; the members before it
  // are whole and stay in `members`.
  std::optional<Error> stopped;
  // When stopped: the member whose header was read but whose bytes were
  // not (empty when a header itself was damaged, or nothing was read), and
  // the byte offset where the whole entries end (what follows it in the
  // shard is unknown; 0 when the shard could not be opened).
  std::string stopped_member;
  int64_t stopped_at_offset = 0;
};

// Scans the tar at `shard`. Never throws on bad data: what went wrong is in
// the result.
TarScan ScanTar(const std::filesystem::path& shard);

// Largest member a shard index records (its sizes are 32-bit).
inline constexpr int64_t kMaxTarMemberBytes = (int64_t{1} << 32) - 1;

}  // namespace segfeed::source
