#include "source/tar_scan.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>

#include "digest.h"
#include "source/file_descriptor.h"
#include "source/file_system.h"

namespace segfeed::source {
namespace {

constexpr int64_t kTarBlock = 512;
// What libarchive is handed per read callback.
constexpr size_t kChunkBytes = size_t{1} << 20;

// libarchive's client: reads the shard through the file-system seam and
// digests every byte on the way, so the shard's digest costs no second pass.
struct ShardStream {
  int fd = -1;
  std::unique_ptr<uint8_t[]> chunk = std::make_unique<uint8_t[]>(kChunkBytes);
  Digest digest;
  int64_t bytes_read = 0;
};

la_ssize_t ReadChunk(struct archive* archive, void* client, const void** data) {
  auto* stream = static_cast<ShardStream*>(client);
  for (;;) {
    const ssize_t n = FileSystemInUse().Read(stream->fd, stream->chunk.get(), kChunkBytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      archive_set_error(archive, errno, "cannot read: %s", std::strerror(errno));
      return -1;
    }
    stream->digest.Update(stream->chunk.get(), static_cast<size_t>(n));
    stream->bytes_read += n;
    *data = stream->chunk.get();
    return n;
  }
}

struct ArchiveFree {
  void operator()(struct archive* archive) const { archive_read_free(archive); }
};

int64_t RoundUpToBlock(int64_t bytes) { return (bytes + kTarBlock - 1) / kTarBlock * kTarBlock; }

bool IsUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const size_t length = lead < 0x80           ? 1
                          : (lead >> 5) == 0x6  ? 2
                          : (lead >> 4) == 0xE  ? 3
                          : (lead >> 3) == 0x1E ? 4
                                                : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

// "/x", "../x", "a/../../x": a name that would leave the shard's folder if
// anything extracted it.
bool LeavesTheShard(std::string_view name) {
  if (name.empty() || name.front() == '/') return true;
  size_t begin = 0;
  while (begin <= name.size()) {
    const size_t end = std::min(name.find('/', begin), name.size());
    if (name.substr(begin, end - begin) == "..") return true;
    begin = end + 1;
  }
  return false;
}

TarEntryKind KindOf(struct archive_entry* entry) {
  if (archive_entry_hardlink(entry) != nullptr) return TarEntryKind::kLink;
  switch (archive_entry_filetype(entry)) {
    case AE_IFREG:
      return TarEntryKind::kRegular;
    case AE_IFDIR:
      return TarEntryKind::kFolder;
    case AE_IFLNK:
      return TarEntryKind::kLink;
    default:
      return TarEntryKind::kOtherType;
  }
}

// Walks the entries of one shard; each method records what it finds in
// scan_ and returns false when the scan must stop.
class TarWalk {
 public:
  TarWalk(TarScan* scan, struct archive* archive) : scan_(*scan), archive_(archive) {}

  // Every entry up to the end-of-archive blocks.
  bool WalkEntries() {
    for (;;) {
      struct archive_entry* entry = nullptr;
      const int status = archive_read_next_header(archive_, &entry);
      if (status == ARCHIVE_EOF) return true;
      // ARCHIVE_RETRY (a bad checksum) ranks above ARCHIVE_WARN: only OK and
      // WARN (a name libarchive could not convert, say) give an entry.
      if (status != ARCHIVE_OK && status != ARCHIVE_WARN) {
        // A bad checksum or a header cut short: what follows cannot be
        // trusted, so the scan ends here rather than hunting for the next
        // header inside member data.
        // Where the header should start (libarchive's own header position
        // is not meaningful after a header it could not read).
        return Stop(scan_.shard.string(),
                    "damaged tar header " + Where(next_header_) + ": " + LibarchiveText());
      }
      if (!Entry(entry)) return false;
    }
  }

  // The end-of-archive blocks (two of zeros) after the last member: a tar
  // cut short exactly between members has none, and libarchive accepts
  // that silently.
  bool CheckEndOfArchive(int fd) {
    if (next_header_ < 0) return true;
    uint8_t end[2 * kTarBlock];
    ssize_t n = 0;
    do {
      n = FileSystemInUse().Pread(fd, end, sizeof end, next_header_);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
      return Stop(scan_.shard.string(), std::string("cannot read: ") + std::strerror(errno));
    const bool zeros = n == static_cast<ssize_t>(sizeof end) &&
                       std::all_of(end, end + sizeof end, [](uint8_t byte) { return byte == 0; });
    if (zeros) return true;
    return Stop(scan_.shard.string(), "the tar ends " + Where(next_header_) +
                                          " without its end-of-archive blocks (truncated?)");
  }

 private:
  bool Entry(struct archive_entry* entry) {
    const int64_t header = archive_read_header_position(archive_);
    // libarchive has read the entry's headers (a PAX or GNU long-name header
    // and the ustar one): the position it has consumed is where the data
    // starts. Checked against the tar's block layout: each header starts
    // where the previous member's padded data ends.
    const int64_t data_offset = archive_filter_bytes(archive_, 0);
    const char* raw_name = archive_entry_pathname(entry);
    TarMember member;
    member.name = raw_name ? raw_name : "";
    member.kind = KindOf(entry);
    if (member.kind == TarEntryKind::kFolder) {
      while (member.name.size() > 1 && member.name.back() == '/') member.name.pop_back();
    }
    const std::string where = scan_.shard.string() + ":" + member.name;
    if (next_header_ >= 0 && header != next_header_) {
      return Stop(where,
                  "header at offset " + std::to_string(header) + ", expected at " +
                      std::to_string(next_header_) + ": member offsets cannot be trusted",
                  member.name);
    }
    next_header_ = -1;  // known again below for a regular member
    if (!IsUtf8(member.name)) return LeaveOut(where, ErrorKind::kIoError, "name is not UTF-8");
    if (LeavesTheShard(member.name)) {
      return LeaveOut(where, ErrorKind::kOutsideRoot,
                      "name leaves the shard's folder (absolute or \"..\"); never extracted");
    }
    if (member.kind != TarEntryKind::kRegular) {
      whole_until_ = data_offset;
      scan_.problems.push_back(
          Error{ErrorKind::kIoError, where,
                std::string("not a regular file (") + TarEntryKindName(member.kind) + ")"});
      scan_.members.push_back(std::move(member));
      return true;
    }
    if (archive_entry_sparse_count(entry) > 0)
      return LeaveOut(where, ErrorKind::kUnsupportedFormat, "a sparse member");
    member.size = archive_entry_size(entry);
    if (member.size > kMaxTarMemberBytes) {
      return LeaveOut(
          where, ErrorKind::kTooLarge,
          std::to_string(member.size) + " bytes: members of 4 GiB or more are not read");
    }
    member.data_offset = data_offset;
    if (!DigestData(where, &member)) return false;
    next_header_ = data_offset + RoundUpToBlock(member.size);
    whole_until_ = next_header_;
    if (member.size == 0)
      scan_.problems.push_back(Error{ErrorKind::kEmptyFile, where, "0-byte member"});
    scan_.members.push_back(std::move(member));
    last_member_ = where;
    return true;
  }

  // Reads the member's bytes through libarchive into its digest.
  bool DigestData(const std::string& where, TarMember* member) {
    Digest digest;
    int64_t done = 0;
    for (;;) {
      const void* block = nullptr;
      size_t bytes = 0;
      la_int64_t offset = 0;
      const int status = archive_read_data_block(archive_, &block, &bytes, &offset);
      if (status == ARCHIVE_EOF) break;
      if ((status != ARCHIVE_OK && status != ARCHIVE_WARN) || offset != done) {
        return Stop(where,
                    "the member's data cannot be read (" + LibarchiveText() +
                        "): the shard ends inside it or is damaged",
                    member->name);
      }
      digest.Update(block, bytes);
      done += static_cast<int64_t>(bytes);
    }
    if (done != member->size) {
      return Stop(where,
                  "read " + std::to_string(done) + " of the member's " +
                      std::to_string(member->size) + " bytes",
                  member->name);
    }
    member->digest = digest.Value();
    return true;
  }

  // "after <shard>:<member> (at offset N)", or "at offset N" before the
  // first member; the offset is left out when it is not known (-1).
  std::string Where(int64_t offset) const {
    const std::string at = offset >= 0 ? "at offset " + std::to_string(offset) : "";
    if (last_member_.empty()) return at.empty() ? "at the start" : at;
    return "after " + last_member_ + (at.empty() ? "" : " (" + at + ")");
  }

  std::string LibarchiveText() const {
    const char* text = archive_error_string(archive_);
    return text ? text : "unknown libarchive error";
  }

  bool LeaveOut(const std::string& where, ErrorKind kind, std::string detail) {
    scan_.problems.push_back(Error{kind, where, std::move(detail)});
    return true;
  }

  // Ends the scan: `member` is the entry whose bytes could not be read
  // (empty for a damaged header or end).
  bool Stop(const std::string& where, std::string detail, std::string member = {}) {
    scan_.stopped = Error{ErrorKind::kIoError, where, std::move(detail)};
    scan_.stopped_member = std::move(member);
    scan_.stopped_at_offset = whole_until_;
    return false;
  }

  TarScan& scan_;
  struct archive* archive_;
  std::string last_member_;
  // Where the entries read whole so far end.
  int64_t whole_until_ = 0;
  // Where the next header must start; -1 after an entry whose data layout
  // is not checked (not a regular file).
  int64_t next_header_ = 0;
};

}  // namespace

const char* TarEntryKindName(TarEntryKind kind) {
  switch (kind) {
    case TarEntryKind::kRegular:
      return "a regular file";
    case TarEntryKind::kFolder:
      return "a folder entry";
    case TarEntryKind::kLink:
      return "a link entry";
    case TarEntryKind::kOtherType:
      break;
  }
  return "a special entry";
}

TarScan ScanTar(const std::filesystem::path& shard) {
  TarScan scan;
  scan.shard = shard;
  FileSystem& file_system = FileSystemInUse();
  int opened = -1;
  do {
    opened = file_system.Open(shard.c_str(), O_RDONLY | O_CLOEXEC, 0);
  } while (opened < 0 && errno == EINTR);
  FileDescriptor fd(opened);
  struct stat info {};
  if (fd.get() < 0 || file_system.Fstat(fd.get(), &info) != 0) {
    scan.stopped = Error{ErrorKind::kIoError, shard.string(),
                         std::string("cannot open the shard: ") + std::strerror(errno)};
    return scan;
  }
  if (!S_ISREG(info.st_mode)) {
    scan.stopped = Error{ErrorKind::kIoError, shard.string(),
                         std::string("the shard is not a regular file but ") +
                             std::string(FileTypeName(info.st_mode))};
    return scan;
  }
  scan.bytes = info.st_size;

  ShardStream stream;
  stream.fd = fd.get();
  std::unique_ptr<struct archive, ArchiveFree> archive(archive_read_new());
  archive_read_support_format_tar(archive.get());
  if (archive_read_open(archive.get(), &stream, nullptr, ReadChunk, nullptr) != ARCHIVE_OK) {
    const char* text = archive_error_string(archive.get());
    scan.stopped = Error{ErrorKind::kUnsupportedFormat, shard.string(),
                         std::string("not a plain tar (compressed shards cannot be read by "
                                     "offset): ") +
                             (text ? text : "unknown format")};
    return scan;
  }
  TarWalk walk(&scan, archive.get());
  if (!walk.WalkEntries() || !walk.CheckEndOfArchive(fd.get())) return scan;

  // The bytes after the end-of-archive blocks (a tar is padded to its
  // record size) belong to the shard's digest too.
  for (;;) {
    const void* ignored = nullptr;
    const la_ssize_t n = ReadChunk(archive.get(), &stream, &ignored);
    if (n < 0) {
      scan.stopped = Error{ErrorKind::kIoError, shard.string(),
                           std::string("cannot read: ") + std::strerror(errno)};
      return scan;
    }
    if (n == 0) break;
  }
  if (stream.bytes_read != scan.bytes) {
    scan.stopped_at_offset = std::min(stream.bytes_read, scan.bytes);
    scan.stopped =
        Error{ErrorKind::kIoError, shard.string(),
              "the shard changed while it was scanned (" + std::to_string(stream.bytes_read) +
                  " bytes read, " + std::to_string(scan.bytes) + " stat'ed)"};
    return scan;
  }
  scan.digest = stream.digest.Value();
  return scan;
}

}  // namespace segfeed::source
