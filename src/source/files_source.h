#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "result.h"
#include "segfeed/dataset.h"
#include "source/sample_source.h"

namespace segfeed::source {

// The first source: one photo file and one mask file per sample, the pairs
// of a listing (PairList, the catalog), read through the file-system seam
// (FileSystemInUse()) so that tests can fail any call. Holds nothing but a
// reference to the listing, which must outlive it: Read(), MemberName()
// and MemberSize() are thread-safe, and Prefetch() does nothing (a local
// file is read when asked, one open, fstat and read(2) per member).
class FilesSource final : public SampleSource {
 public:
  explicit FilesSource(const PairList& pairs) : pairs_(pairs) {}

  size_t sample_count() const override { return pairs_.size(); }
  std::string Key(SampleId id) const override;
  // The file's path.
  std::string MemberName(SampleId id, Member member) const override;
  // stat(2) of the file (following links): nullopt when that fails or the
  // file is not a regular file.
  std::optional<int64_t> MemberSize(SampleId id, Member member) const override;
  void Prefetch(std::span<const SampleId>) override {}
  Result<std::span<const uint8_t>> Read(SampleId id, Member member, ReadBuffer* into,
                                        const HeadCheck* head = nullptr) override;

 private:
  std::filesystem::path MemberPath(SampleId id, Member member) const;

  const PairList& pairs_;
};

// Reads the whole file at `path` into `into`, as FilesSource::Read() reads a
// member, for files that belong to no sample (the checker's unpaired files,
// the naive baseline): one read(2) in the common case, EINTR retried and a
// short read read on. Errors name `path`: empty_file for zero bytes,
// too_large above into->max_bytes() (from fstat(2), before reading),
// io_error (with the errno text) for a missing file, a dangling symlink, a
// folder, a FIFO or device (refused without blocking), a permission
// problem, a failed read, or a file that ends before its stat'ed size.
Result<std::span<const uint8_t>> ReadWholeFile(const std::filesystem::path& path, ReadBuffer* into,
                                               const HeadCheck* head = nullptr);

}  // namespace segfeed::source
