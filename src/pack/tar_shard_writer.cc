#include "pack/tar_shard_writer.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <unistd.h>

#include <locale.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

namespace segfeed::pack {
namespace {

constexpr int64_t kBlock = 512;

// libarchive converts a name from the thread's locale to the UTF-8 of a
// PAX header, and a command-line tool runs in the "C" locale, where every
// non-ASCII name fails to convert. Names here are UTF-8 already
// (UnusableKeyReason() refuses others), so libarchive runs under C.UTF-8's
// character type on this thread while it writes (uselocale is per thread;
// the process's locale is left alone). Without C.UTF-8 a non-ASCII name is
// the error libarchive gives.
class Utf8Names {
 public:
  Utf8Names() : utf8_(newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr))) {
    if (utf8_ != static_cast<locale_t>(nullptr)) before_ = uselocale(utf8_);
  }
  Utf8Names(const Utf8Names&) = delete;
  Utf8Names& operator=(const Utf8Names&) = delete;
  ~Utf8Names() {
    if (utf8_ == static_cast<locale_t>(nullptr)) return;
    uselocale(before_);
    freelocale(utf8_);
  }

 private:
  locale_t utf8_;
  locale_t before_ = static_cast<locale_t>(nullptr);
};

bool FitsUstar(std::string_view name) {
  if (name.size() > 100) return false;
  for (const char c : name) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// libarchive's message for a failed write is "Write error"; the reason a
// user can act on (a full disk, a quota) is in its errno.
std::string ArchiveWhy(archive* archive) {
  std::string why = archive_error_string(archive) ? archive_error_string(archive) : "unknown";
  const int error = archive_errno(archive);
  if (error > 0) why += std::string(" (") + std::strerror(error) + ")";
  return why;
}

}  // namespace

int64_t TarMemberBytes(std::string_view name, int64_t size) {
  const int64_t padded = (size + kBlock - 1) / kBlock * kBlock;
  // A PAX header is a header block and one or two blocks of records.
  const int64_t pax =
      FitsUstar(name) ? 0 : kBlock + (static_cast<int64_t>(name.size()) + 600) / kBlock * kBlock;
  return kBlock + pax + padded;
}

TarShardWriter::~TarShardWriter() { Abandon(); }

void TarShardWriter::Abandon() {
  if (archive_ != nullptr) archive_write_free(archive_);  // closes, ignoring errors
  archive_ = nullptr;
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

Error TarShardWriter::WriteError(std::string_view member, std::string_view what) const {
  const std::string where =
      member.empty() ? path_.string() : path_.string() + ":" + std::string(member);
  return Error{ErrorKind::kIoError, where, std::string(what)};
}

Status TarShardWriter::Open(const std::filesystem::path& path) {
  Abandon();
  path_ = path;
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) return WriteError("", std::string("cannot create: ") + std::strerror(errno));
  archive_ = archive_write_new();
  // pax_restricted: ustar unless a name needs PAX's extended header.
  if (archive_ == nullptr || archive_write_set_format_pax_restricted(archive_) != ARCHIVE_OK ||
      archive_write_open_fd(archive_, fd_) != ARCHIVE_OK) {
    const std::string why = archive_ ? ArchiveWhy(archive_) : "out of memory";
    Abandon();
    return WriteError("", "cannot start the tar: " + why);
  }
  return {};
}

Status TarShardWriter::Add(std::string_view name, std::span<const uint8_t> bytes) {
  const Utf8Names utf8_names;
  std::unique_ptr<archive_entry, decltype(&archive_entry_free)> entry(archive_entry_new(),
                                                                      archive_entry_free);
  const std::string pathname(name);
  archive_entry_set_pathname(entry.get(), pathname.c_str());
  archive_entry_set_size(entry.get(), static_cast<la_int64_t>(bytes.size()));
  archive_entry_set_filetype(entry.get(), AE_IFREG);
  archive_entry_set_perm(entry.get(), 0644);
  archive_entry_set_uid(entry.get(), 0);
  archive_entry_set_gid(entry.get(), 0);
  archive_entry_set_mtime(entry.get(), 0, 0);
  if (archive_write_header(archive_, entry.get()) != ARCHIVE_OK)
    return WriteError(name, "cannot write its header: " + ArchiveWhy(archive_));
  const la_ssize_t written = archive_write_data(archive_, bytes.data(), bytes.size());
  if (written < 0 || static_cast<size_t>(written) != bytes.size())
    return WriteError(name, std::string("cannot write its bytes: ") +
                                (written < 0 ? ArchiveWhy(archive_) : "short write"));
  return {};
}

Status TarShardWriter::Finish() {
  const Utf8Names utf8_names;
  const bool closed = archive_write_close(archive_) == ARCHIVE_OK;
  const std::string why = closed ? "" : ArchiveWhy(archive_);
  archive_write_free(archive_);
  archive_ = nullptr;
  if (!closed) {
    Abandon();
    return WriteError("", "cannot finish the tar: " + why);
  }
  const bool synced = fsync(fd_) == 0;
  const int sync_errno = errno;
  const bool closed_fd = close(fd_) == 0;
  fd_ = -1;
  if (!synced || !closed_fd)
    return WriteError(
        "", std::string("cannot write the shard: ") + std::strerror(synced ? errno : sync_errno));
  return {};
}

}  // namespace segfeed::pack
