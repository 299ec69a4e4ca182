// The contract every SampleSource keeps (docs/design.md, "Sources"), as a
// typed test: each source has a maker that builds it from the same
// description of samples, and every test here runs against each of them.
// FilesSource is the first, ShardsSource the second, RemoteShardsSource
// (shards over HTTP, from the loopback range server) the third.

#include "source/sample_source.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fixtures/fixtures.h"
#include "remote/loopback_http_server.h"
#include "remote/object_url.h"
#include "remote/remote_shards_source.h"
#include "segfeed/dataset.h"
#include "source/file_system.h"
#include "source/files_source.h"
#include "source/shard_index.h"
#include "source/shard_samples.h"
#include "source/shards_source.h"
#include "source/tar_writing.h"
#include "temp_dir.h"

namespace segfeed::source {
namespace {

using testing::TempDir;

// What a member is in a test dataset; a source expresses each defect in its
// own terms (a file that is a folder, a shard member that is a folder
// entry, an object that answers 403).
enum class MemberKind { kBytes, kMissing, kEmpty, kNotRegular, kUnreadable };

struct MemberSpec {
  MemberKind kind = MemberKind::kBytes;
  std::vector<uint8_t> bytes;  // kBytes only
};

struct SampleSpec {
  std::string key;
  MemberSpec image;
  MemberSpec mask;
};

// Every read in these tests is under this budget; a member above it is
// too_large.
constexpr int64_t kMaxBytes = 4096;

// Refuses to open the paths of `denied` and to read (pread) the bytes at
// the offsets of `denied_reads`, with EACCES; passes everything else on.
class DenyingFileSystem final : public FileSystem {
 public:
  std::set<std::string> denied;
  std::set<off_t> denied_reads;
  int Open(const char* path, int flags, mode_t mode) override {
    if (denied.count(path) > 0) {
      errno = EACCES;
      return -1;
    }
    return real_.Open(path, flags, mode);
  }
  int Fstat(int fd, struct stat* info) override { return real_.Fstat(fd, info); }
  int Stat(const char* path, struct stat* info) override { return real_.Stat(path, info); }
  ssize_t Read(int fd, void* buffer, size_t bytes) override {
    return real_.Read(fd, buffer, bytes);
  }
  ssize_t Pread(int fd, void* buffer, size_t bytes, off_t offset) override {
    if (denied_reads.count(offset) > 0) {
      errno = EACCES;
      return -1;
    }
    return real_.Pread(fd, buffer, bytes, offset);
  }
  ssize_t Write(int fd, const void* buffer, size_t bytes) override {
    return real_.Write(fd, buffer, bytes);
  }
  int Fchmod(int fd, mode_t mode) override { return real_.Fchmod(fd, mode); }
  int Fsync(int fd) override { return real_.Fsync(fd); }
  int Close(int fd) override { return real_.Close(fd); }
  int Rename(const char* from, const char* to) override { return real_.Rename(from, to); }
  int Unlink(const char* path) override { return real_.Unlink(path); }
  DIR* OpenDir(const char* path) override { return real_.OpenDir(path); }
  struct dirent* ReadDir(DIR* dir) override {
    return real_.ReadDir(dir);
  }
  int CloseDir(DIR* dir) override { return real_.CloseDir(dir); }
  int Mkdir(const char* path, mode_t mode) override { return real_.Mkdir(path, mode); }
  int Flock(int fd, int operation) override { return real_.Flock(fd, operation); }
  int Futimens(int fd, const struct timespec times[2]) override {
    return real_.Futimens(fd, times);
  }
  ssize_t Pwrite(int fd, const void* buffer, size_t bytes, off_t offset) override {
    return real_.Pwrite(fd, buffer, bytes, offset);
  }

 private:
  FileSystem& real_ = DefaultFileSystem();
};

// Makes a FilesSource of `samples` in a temporary folder: photos in
// images/<key>.jpg, masks in masks/<key>_mask.gif. An unreadable member is
// a file whose open(2) fails with EACCES (through the file-system seam:
// permissions do not stop root).
class FilesSourceMaker {
 public:
  static constexpr const char* kName = "FilesSource";
  // What an unreadable member's error says, and whether it takes the
  // sample's other member with it.
  static constexpr const char* kUnreadableDetail = "Permission denied";
  static constexpr bool kSampleFailsWhole = false;
  std::unique_ptr<SampleSource> Make(const std::vector<SampleSpec>& samples) {
    std::filesystem::create_directories(dir_ / "images");
    std::filesystem::create_directories(dir_ / "masks");
    pairs_ = PairList(dir_ / "images", dir_ / "masks", "", "_mask");
    const uint32_t folder = pairs_.AddFolder("");
    for (const SampleSpec& sample : samples) {
      pairs_.AddKeyed(folder, sample.key, ".jpg", ".gif");
      Write(dir_ / "images" / (sample.key + ".jpg"), sample.image);
      Write(dir_ / "masks" / (sample.key + "_mask.gif"), sample.mask);
    }
    return std::make_unique<FilesSource>(pairs_);
  }

 private:
  void Write(const std::filesystem::path& path, const MemberSpec& member) {
    switch (member.kind) {
      case MemberKind::kBytes:
        testing::WriteFile(path, member.bytes);
        return;
      case MemberKind::kMissing:
        return;
      case MemberKind::kEmpty:
        testing::WriteFile(path, {});
        return;
      case MemberKind::kNotRegular:
        std::filesystem::create_directory(path);
        return;
      case MemberKind::kUnreadable:
        testing::WriteFile(path, testing::RandomBytes(100, 9));
        file_system_.denied.insert(path.string());
        return;
    }
  }

  TempDir dir_;
  PairList pairs_;
  DenyingFileSystem file_system_;
  FileSystemOverrideForTesting override_{&file_system_};
};

// Writes `samples` into one PAX tar, <dir>/shard-000000.tar, whose members
// are <key>.jpg and <key>.mask.gif, and its index beside it. A missing
// member is absent from the tar, an empty one a 0-byte member, one that is
// not regular a symbolic link entry. Returns the data offsets of the
// unreadable members, for the maker to refuse in its own terms.
std::vector<uint64_t> WriteIndexedShard(const std::filesystem::path& dir,
                                        const std::vector<SampleSpec>& samples) {
  std::vector<testing::TarEntrySpec> entries;
  std::set<std::string> unreadable;
  const auto add = [&](const std::string& name, const MemberSpec& member) {
    switch (member.kind) {
      case MemberKind::kBytes:
        entries.push_back(testing::File(name, member.bytes));
        return;
      case MemberKind::kMissing:
        return;
      case MemberKind::kEmpty:
        entries.push_back(testing::File(name, {}));
        return;
      case MemberKind::kNotRegular:
        entries.push_back({name, {}, testing::TarEntrySpec::Type::kSymlink});
        return;
      case MemberKind::kUnreadable:
        entries.push_back(testing::File(name, testing::RandomBytes(100, 9)));
        unreadable.insert(name);
        return;
    }
  };
  for (const SampleSpec& sample : samples) {
    add(sample.key + ".jpg", sample.image);
    add(sample.key + ".mask.gif", sample.mask);
  }
  const std::filesystem::path shard = dir / "shard-000000.tar";
  testing::WriteTar(shard, testing::TarFormat::kPax, entries);
  const TarScan scan = ScanTar(shard);
  std::vector<uint64_t> offsets;
  for (const TarMember& member : scan.members) {
    if (unreadable.count(member.name) > 0)
      offsets.push_back(static_cast<uint64_t>(member.data_offset));
  }
  ShardListing listing = ListShardSamples({scan});
  EXPECT_TRUE(listing.errors.empty());
  EXPECT_TRUE(WriteShardIndex(listing.catalog, dir / kShardIndexFileName).ok());
  return offsets;
}

// Makes a ShardsSource of `samples` (WriteIndexedShard()), read back
// through the index. An unreadable member is one whose pread(2) fails with
// EACCES (through the seam).
class ShardsSourceMaker {
 public:
  static constexpr const char* kName = "ShardsSource";
  static constexpr const char* kUnreadableDetail = "Permission denied";
  static constexpr bool kSampleFailsWhole = false;
  std::unique_ptr<SampleSource> Make(const std::vector<SampleSpec>& samples) {
    for (const uint64_t offset : WriteIndexedShard(dir_.path(), samples))
      file_system_.denied_reads.insert(static_cast<off_t>(offset));
    Result<ShardCatalog> catalog = ReadShardIndex(dir_.path() / kShardIndexFileName);
    EXPECT_TRUE(catalog.ok()) << catalog.error().Message();
    return std::make_unique<ShardsSource>(std::move(catalog).value());
  }

 private:
  TempDir dir_;
  DenyingFileSystem file_system_;
  FileSystemOverrideForTesting override_{&file_system_};
};

// Makes a RemoteShardsSource of `samples` (WriteIndexedShard()), served
// over HTTP by a loopback range server. An unreadable member is a byte
// range the server answers with 403: a sample is one request for both its
// members, so the other member fails with it. Neighbouring samples are not
// coalesced here (max_gap_bytes 0): their shared request would hold the
// denied range too, which a store's permissions (per object) never do.
class RemoteShardsSourceMaker {
 public:
  static constexpr const char* kName = "RemoteShardsSource";
  static constexpr const char* kUnreadableDetail = "access denied";
  static constexpr bool kSampleFailsWhole = true;
  std::unique_ptr<SampleSource> Make(const std::vector<SampleSpec>& samples) {
    const std::vector<uint64_t> unreadable = WriteIndexedShard(dir_.path(), samples);
    server_ = std::make_unique<testing::LoopbackHttpServer>(dir_.path());
    for (const uint64_t offset : unreadable) server_->DenyByte("shard-000000.tar", offset);
    auto index = remote::ParseObjectUrl(server_->url() + kShardIndexFileName);
    EXPECT_TRUE(index.ok());
    remote::ReadAheadOptions read_ahead;
    read_ahead.max_gap_bytes = 0;
    auto opened =
        remote::RemoteShardsSource::Open(index.value(), remote::RangeClientOptions{}, read_ahead);
    EXPECT_TRUE(opened.ok()) << opened.error().Message();
    return std::move(opened).value();
  }

 private:
  TempDir dir_;
  std::unique_ptr<testing::LoopbackHttpServer> server_;
};

MemberSpec Bytes(size_t size, uint32_t seed) {
  return {MemberKind::kBytes, testing::RandomBytes(size, seed)};
}
MemberSpec Defect(MemberKind kind) { return {kind, {}}; }

// Good samples around one bad member each, so that every defect sits
// between good samples: what a source reads for one sample must not depend
// on what it read, or failed to read, before.
std::vector<SampleSpec> TestSamples() {
  return {
      {"a", Bytes(1000, 1), Bytes(300, 2)},
      {"b", Defect(MemberKind::kMissing), Bytes(200, 3)},
      {"c", Bytes(2000, 4), Bytes(100, 5)},
      {"d", Bytes(700, 6), Defect(MemberKind::kEmpty)},
      {"e", Bytes(1, 7), Bytes(kMaxBytes, 8)},
      {"f", Defect(MemberKind::kNotRegular), Bytes(50, 10)},
      {"g", Bytes(3000, 11), Defect(MemberKind::kUnreadable)},
      {"h", Bytes(kMaxBytes + 1, 12), Bytes(400, 13)},
      {"i", Bytes(15, 14), Bytes(16, 15)},
  };
}

const MemberSpec& SpecOf(const SampleSpec& sample, Member member) {
  return member == Member::kImage ? sample.image : sample.mask;
}

bool Good(const MemberSpec& member) {
  return member.kind == MemberKind::kBytes &&
         static_cast<int64_t>(member.bytes.size()) <= kMaxBytes;
}

// Whether a member reads whole from a source made by Maker: good, and not
// beside an unreadable member where the source fetches both as one.
template <typename Maker>
bool Readable(const SampleSpec& sample, Member member) {
  const MemberSpec& other =
      SpecOf(sample, member == Member::kImage ? Member::kMask : Member::kImage);
  return Good(SpecOf(sample, member)) &&
         !(Maker::kSampleFailsWhole && other.kind == MemberKind::kUnreadable);
}

constexpr Member kMembers[] = {Member::kImage, Member::kMask};

template <typename Maker>
class SampleSourceTest : public ::testing::Test {
 protected:
  SampleSourceTest() : samples_(TestSamples()), source_(maker_.Make(samples_)) {}

  // Reads every member of every sample into `buffers` (one per member) and
  // checks each result against the samples' description.
  void ReadAllAndCheck(ReadBuffer* image, ReadBuffer* mask) {
    for (SampleId id = 0; id < samples_.size(); ++id) {
      for (Member member : kMembers)
        ExpectRead(id, member, member == Member::kImage ? image : mask);
    }
  }

  void ExpectRead(SampleId id, Member member, ReadBuffer* into) {
    const MemberSpec& spec = SpecOf(samples_[id], member);
    auto read = source_->Read(id, member, into);
    if (Readable<Maker>(samples_[id], member)) {
      ASSERT_TRUE(read.ok()) << read.error().Message();
      EXPECT_EQ(std::vector<uint8_t>(read.value().begin(), read.value().end()), spec.bytes)
          << samples_[id].key;
      EXPECT_EQ(read.value().data(), into->bytes().data());
      EXPECT_EQ(read.value().size(), into->bytes().size());
    } else {
      ASSERT_FALSE(read.ok()) << samples_[id].key;
      EXPECT_EQ(read.error().path, source_->MemberName(id, member));
      EXPECT_TRUE(into->bytes().empty());
    }
  }

  Maker maker_;
  std::vector<SampleSpec> samples_;
  std::unique_ptr<SampleSource> source_;
};

// The sources under test; each new source adds its maker here.
using Makers = ::testing::Types<FilesSourceMaker, ShardsSourceMaker, RemoteShardsSourceMaker>;
struct MakerNames {
  template <typename Maker>
  static std::string GetName(int) {
    return Maker::kName;
  }
};
TYPED_TEST_SUITE(SampleSourceTest, Makers, MakerNames);

TYPED_TEST(SampleSourceTest, ReadsEveryMemberByteForByte) {
  ASSERT_EQ(this->source_->sample_count(), this->samples_.size());
  ReadBuffer image(kMaxBytes), mask(kMaxBytes);
  this->ReadAllAndCheck(&image, &mask);
}

TYPED_TEST(SampleSourceTest, KeysAndNamesSayWhichSampleAndMember) {
  std::set<std::string> names;
  for (SampleId id = 0; id < this->samples_.size(); ++id) {
    EXPECT_EQ(this->source_->Key(id), this->samples_[id].key);
    for (Member member : kMembers) {
      const std::string name = this->source_->MemberName(id, member);
      EXPECT_NE(name.find(this->samples_[id].key), std::string::npos) << name;
      EXPECT_TRUE(names.insert(name).second) << "two members named " << name;
    }
  }
}

TYPED_TEST(SampleSourceTest, SizesKnownAreTheSizesRead) {
  for (SampleId id = 0; id < this->samples_.size(); ++id) {
    for (Member member : kMembers) {
      const MemberSpec& spec = SpecOf(this->samples_[id], member);
      const std::optional<int64_t> size = this->source_->MemberSize(id, member);
      if (spec.kind == MemberKind::kBytes) {
        ASSERT_TRUE(size.has_value()) << this->source_->MemberName(id, member);
        EXPECT_EQ(*size, static_cast<int64_t>(spec.bytes.size()));
      } else if (spec.kind == MemberKind::kEmpty) {
        EXPECT_EQ(size.value_or(0), 0);
      } else if (spec.kind != MemberKind::kUnreadable) {
        EXPECT_FALSE(size.has_value()) << this->source_->MemberName(id, member);
      }
    }
  }
}

TYPED_TEST(SampleSourceTest, BadMembersGiveTheirErrorKindNamingTheMember) {
  const auto expect_error = [&](SampleId id, Member member, ErrorKind kind,
                                const std::string& detail) {
    ReadBuffer buffer(kMaxBytes);
    auto read = this->source_->Read(id, member, &buffer);
    ASSERT_FALSE(read.ok()) << this->samples_[id].key;
    EXPECT_EQ(read.error().kind, kind) << read.error().Message();
    EXPECT_EQ(read.error().path, this->source_->MemberName(id, member));
    EXPECT_NE(read.error().detail.find(detail), std::string::npos) << read.error().Message();
  };
  expect_error(1, Member::kImage, ErrorKind::kIoError, "No such file");
  expect_error(3, Member::kMask, ErrorKind::kEmptyFile, "empty");
  expect_error(5, Member::kImage, ErrorKind::kIoError, "not a regular file");
  expect_error(6, Member::kMask, ErrorKind::kIoError, TypeParam::kUnreadableDetail);
  expect_error(7, Member::kImage, ErrorKind::kTooLarge, std::to_string(kMaxBytes));
  // The other member of each bad sample is still whole (but where the
  // source fetches a sample's members as one and the fetch failed).
  ReadBuffer buffer(kMaxBytes);
  for (SampleId id : {1u, 3u, 5u, 6u, 7u}) {
    for (Member member : kMembers) this->ExpectRead(id, member, &buffer);
  }
}

TYPED_TEST(SampleSourceTest, TooLargeIsRefusedBeforeTheBufferGrows) {
  ReadBuffer buffer(kMaxBytes);
  auto read = this->source_->Read(7, Member::kImage, &buffer);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ErrorKind::kTooLarge);
  // The size is known before reading, so no buffer of it was taken.
  EXPECT_EQ(buffer.capacity_bytes(), 0u);
}

TYPED_TEST(SampleSourceTest, HeadCheckSeesTheFirstBytesBeforeTheBufferGrows) {
  class Refuse final : public HeadCheck {
   public:
    Status Check(std::span<const uint8_t> head, const std::string& name) const override {
      seen.assign(head.begin(), head.end());
      return Error{ErrorKind::kUnsupportedFormat, name, "refused by the check"};
    }
    mutable std::vector<uint8_t> seen;
  };
  class Accept final : public HeadCheck {
   public:
    Status Check(std::span<const uint8_t>, const std::string&) const override { return {}; }
  };
  for (SampleId id : {0u, 4u, 8u}) {
    const std::vector<uint8_t>& bytes = this->samples_[id].image.bytes;
    Refuse refuse;
    ReadBuffer buffer(kMaxBytes);
    auto read = this->source_->Read(id, Member::kImage, &buffer, &refuse);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error().kind, ErrorKind::kUnsupportedFormat);
    EXPECT_EQ(read.error().path, this->source_->MemberName(id, Member::kImage));
    const size_t head = std::min(bytes.size(), HeadCheck::kBytes);
    EXPECT_EQ(refuse.seen, std::vector<uint8_t>(bytes.begin(), bytes.begin() + head));
    EXPECT_LT(buffer.capacity_bytes(), std::max<size_t>(bytes.size(), 2));
    // Accepted, the member is read whole, its first bytes included.
    Accept accept;
    auto whole = this->source_->Read(id, Member::kImage, &buffer, &accept);
    ASSERT_TRUE(whole.ok()) << whole.error().Message();
    EXPECT_EQ(std::vector<uint8_t>(whole.value().begin(), whole.value().end()), bytes);
  }
}

TYPED_TEST(SampleSourceTest, PrefetchHintsAreHarmlessInAnyOrder) {
  std::vector<SampleId> all;
  for (SampleId id = 0; id < this->samples_.size(); ++id) all.push_back(id);
  const std::vector<SampleId> reversed(all.rbegin(), all.rend());
  const std::vector<SampleId> repeated = {2, 2, 0, 8, 0, 7, 7, 1};
  ReadBuffer image(kMaxBytes), mask(kMaxBytes);
  this->source_->Prefetch(all);
  this->ReadAllAndCheck(&image, &mask);
  // Announced in one order, read in another; announced twice; never.
  this->source_->Prefetch(reversed);
  this->source_->Prefetch(repeated);
  this->source_->Prefetch({});
  this->ReadAllAndCheck(&image, &mask);
  this->source_->Prefetch(std::span<const SampleId>(all).subspan(0, 2));
  for (SampleId id : reversed) {
    for (Member member : kMembers) this->ExpectRead(id, member, &image);
  }
}

TYPED_TEST(SampleSourceTest, ConcurrentReadsFromSeveralThreads) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 5;
  std::vector<std::thread> threads;
  std::vector<int> wrong(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ReadBuffer buffer(kMaxBytes);
      const size_t count = this->samples_.size();
      for (int round = 0; round < kRounds; ++round) {
        for (size_t step = 0; step < count; ++step) {
          // Each thread walks the samples from its own starting point.
          const auto id = static_cast<SampleId>((step * (t + 1) + t) % count);
          for (Member member : kMembers) {
            const MemberSpec& spec = SpecOf(this->samples_[id], member);
            auto read = this->source_->Read(id, member, &buffer);
            const bool right =
                Readable<TypeParam>(this->samples_[id], member)
                    ? read.ok() && std::equal(read.value().begin(), read.value().end(),
                                              spec.bytes.begin(), spec.bytes.end())
                    : !read.ok();
            wrong[static_cast<size_t>(t)] += right ? 0 : 1;
          }
        }
      }
    });
  }
  // Announcing while the others read is allowed too.
  std::vector<SampleId> all;
  for (SampleId id = 0; id < this->samples_.size(); ++id) all.push_back(id);
  this->source_->Prefetch(all);
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[static_cast<size_t>(t)], 0) << "thread " << t;
}

TYPED_TEST(SampleSourceTest, ReusedBuffersDoNotGrow) {
  ReadBuffer image(kMaxBytes), mask(kMaxBytes);
  this->ReadAllAndCheck(&image, &mask);
  const size_t image_capacity = image.capacity_bytes();
  const size_t mask_capacity = mask.capacity_bytes();
  const uint8_t* image_data = image.bytes().data();
  // The buffers hold about the largest good members, nothing more.
  size_t largest_image = 0, largest_mask = 0;
  for (const SampleSpec& sample : this->samples_) {
    if (Readable<TypeParam>(sample, Member::kImage))
      largest_image = std::max(largest_image, sample.image.bytes.size());
    if (Readable<TypeParam>(sample, Member::kMask))
      largest_mask = std::max(largest_mask, sample.mask.bytes.size());
  }
  EXPECT_GE(image_capacity, largest_image);
  EXPECT_LE(image_capacity, 2 * largest_image);
  EXPECT_GE(mask_capacity, largest_mask);
  EXPECT_LE(mask_capacity, 2 * largest_mask);
  for (int round = 0; round < 3; ++round) this->ReadAllAndCheck(&image, &mask);
  EXPECT_EQ(image.capacity_bytes(), image_capacity);
  EXPECT_EQ(mask.capacity_bytes(), mask_capacity);
  auto again = this->source_->Read(0, Member::kImage, &image);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().data(), image_data);
}

}  // namespace
}  // namespace segfeed::source
