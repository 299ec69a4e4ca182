// The shard index read over HTTP, against the loopback range server: one GET
// of it for a Loader, a corrupt or short body fetched again, a damaged
// index named after the last attempt; and the dataset's own keys, as the
// local source gives them.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "demo/demo_scene.h"
#include "remote/loopback_http_server.h"
#include "remote/object_url.h"
#include "remote/remote_shards_source.h"
#include "segfeed/loader.h"
#include "source/sample_source.h"
#include "source/shard_index.h"
#include "source/shard_packing.h"
#include "source/shard_samples.h"
#include "source/shards_source.h"
#include "source/tar_writing.h"
#include "support/batch_bytes.h"
#include "support/demo_pairs.h"
#include "temp_dir.h"

namespace segfeed::remote {
namespace {

namespace fs = std::filesystem;
using segfeed::testing::LoopbackHttpServer;
using segfeed::testing::TempDir;

// 13 Carvana pairs packed into shards of 3 (an index beside them).
class RemoteIndexTest : public ::testing::Test {
 protected:
  RemoteIndexTest() {
    demo::DemoOptions demo;
    demo.count = 13;
    demo.width = 96;
    demo.height = 64;
    segfeed::testing::WriteDemoPairs(dir_.path() / "carvana", demo);
    segfeed::testing::PackIntoShards(
        ListDataset(DatasetSpec::Carvana(dir_.path() / "carvana")).pairs, shards(), 3);
    index_bytes_ = segfeed::testing::ReadAll(shards() / source::kShardIndexFileName);
  }

  fs::path shards() const { return dir_.path() / "shards"; }

  // The index with one byte changed, and cut short.
  std::string Corrupt() const {
    std::string bytes(index_bytes_.begin(), index_bytes_.end());
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
    return bytes;
  }
  std::string Short() const {
    return std::string(index_bytes_.begin(), index_bytes_.begin() + index_bytes_.size() / 2);
  }

  static LoaderOptions SmallOptions() {
    LoaderOptions options;
    options.batch_size = 4;
    options.threads = 2;
    options.seed = 11;
    options.augment.output_width = 40;
    options.augment.output_height = 32;
    options.pinned = PinnedMode::kOff;
    return options;
  }

  static std::vector<std::string> Epoch(Loader& loader) {
    loader.StartEpoch(0);
    return segfeed::testing::Remaining(loader);
  }

  TempDir dir_;
  std::vector<uint8_t> index_bytes_;
};

TEST_F(RemoteIndexTest, ALoaderFetchesTheIndexOnceAndStreamsTheLocalBatches) {
  LoopbackHttpServer server(shards());
  Loader local(DatasetSpec::Shards(shards()), SmallOptions());
  Loader remote(DatasetSpec::Shards(fs::path(server.url())), SmallOptions());
  // The spec fetched it (for its label options); the listing and the
  // source took the bytes from the spec.
  EXPECT_EQ(server.requests_of(source::kShardIndexFileName), 1);
  EXPECT_TRUE(Epoch(remote) == Epoch(local));
  EXPECT_EQ(server.requests_of(source::kShardIndexFileName), 1);
  // The source's own client made every request since (the shards' ranges).
  EXPECT_EQ(remote.stats().remote_requests, server.requests() - 1);
}

TEST_F(RemoteIndexTest, ASpecWrittenByHandFetchesTheIndexWhenListed) {
  LoopbackHttpServer server(shards());
  DatasetSpec spec;
  spec.name = "shards";
  spec.shard_index = server.url() + source::kShardIndexFileName;
  Loader loader(spec, SmallOptions());
  EXPECT_EQ(server.requests_of(source::kShardIndexFileName), 1);
  EXPECT_EQ(loader.dataset().sample_count(), 13u);
}

TEST_F(RemoteIndexTest, BytesFetchedForAnotherUrlAreNotUsed) {
  LoopbackHttpServer first(shards());
  LoopbackHttpServer second(shards());
  DatasetSpec spec = DatasetSpec::Shards(fs::path(first.url()));
  spec.shard_index = second.url() + source::kShardIndexFileName;
  Loader loader(spec, SmallOptions());
  EXPECT_EQ(first.requests_of(source::kShardIndexFileName), 1);
  EXPECT_EQ(second.requests_of(source::kShardIndexFileName), 1);
  EXPECT_EQ(loader.dataset().SampleNames(0).first.rfind(second.url(), 0), 0u)
      << loader.dataset().SampleNames(0).first;
}

TEST_F(RemoteIndexTest, ACorruptOrShortIndexIsFetchedAgain) {
  LoopbackHttpServer server(shards());
  server.ServeInstead(source::kShardIndexFileName, {Corrupt(), Short()});
  Loader local(DatasetSpec::Shards(shards()), SmallOptions());
  Loader remote(DatasetSpec::Shards(fs::path(server.url())), SmallOptions());
  EXPECT_EQ(server.requests_of(source::kShardIndexFileName), 3);
  EXPECT_TRUE(Epoch(remote) == Epoch(local));
}

TEST_F(RemoteIndexTest, ADamagedIndexIsNamedAfterTheLastAttempt) {
  LoopbackHttpServer server(shards());
  server.ServeInstead(source::kShardIndexFileName, {Corrupt(), Short(), Corrupt()});
  RangeClientOptions client;
  client.retry.attempts = 3;
  client.retry.base_backoff_ms = 1;
  const std::string url = server.url() + source::kShardIndexFileName;
  auto opened = RemoteShardsSource::Open(ParseObjectUrl(url).value(), client, ReadAheadOptions{});
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().path, url);
  EXPECT_NE(opened.error().detail.find("the index is damaged"), std::string::npos)
      << opened.error().Message();
  EXPECT_NE(opened.error().detail.find("3 bodies"), std::string::npos) << opened.error().Message();
  EXPECT_EQ(server.requests_of(source::kShardIndexFileName), 3);
  // The server serves the right one again: so does the next open.
  auto again = RemoteShardsSource::Open(ParseObjectUrl(url).value(), client, ReadAheadOptions{});
  ASSERT_TRUE(again.ok()) << again.error().Message();
  EXPECT_EQ(again.value()->sample_count(), 13u);
}

TEST_F(RemoteIndexTest, AMissingIndexIsNotRetried) {
  LoopbackHttpServer server(dir_.path());
  const std::string url = server.url() + "nowhere/" + source::kShardIndexFileName;
  auto opened = RemoteShardsSource::Open(ParseObjectUrl(url).value(), RangeClientOptions{},
                                         ReadAheadOptions{});
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.error().detail.find("no such object"), std::string::npos)
      << opened.error().Message();
  EXPECT_EQ(opened.error().detail.find("damaged"), std::string::npos) << opened.error().Message();
  EXPECT_EQ(server.requests(), 1);
}

// A key with a dot in its last part is a member key with the dot encoded
// (`segfeed pack`); both sources give the dataset's key and name the
// member as the tar does.
TEST(RemoteKeysTest, KeysAreTheDatasetsOwnAsFromLocalShards) {
  TempDir dir;
  const fs::path shard = dir.path() / "shard-000000.tar";
  segfeed::testing::WriteTar(
      shard, segfeed::testing::TarFormat::kPax,
      {segfeed::testing::File("scan%2Ev2.jpg", {1, 2, 3}),
       segfeed::testing::File("scan%2Ev2.mask.png", {4, 5}),
       segfeed::testing::File("plain.jpg", {6}), segfeed::testing::File("plain.mask.png", {7})});
  source::ShardListing listing = source::ListShardSamples({source::ScanTar(shard)});
  ASSERT_EQ(listing.catalog.sample_count(), 2u);
  source::ShardIndexDataset dataset;
  dataset.original_keys = {{0, "scan.v2"}};
  ASSERT_TRUE(
      source::WriteShardIndex(listing.catalog, dir.path() / source::kShardIndexFileName, dataset)
          .ok());

  source::ShardIndexDataset read;
  auto catalog = source::ReadShardIndex(dir.path() / source::kShardIndexFileName,
                                        source::ShardCheck::kSizes, &read);
  ASSERT_TRUE(catalog.ok());
  const source::ShardsSource local(std::move(catalog).value(), read.original_keys);
  LoopbackHttpServer server(dir.path());
  auto remote =
      RemoteShardsSource::Open(ParseObjectUrl(server.url() + source::kShardIndexFileName).value(),
                               RangeClientOptions{}, ReadAheadOptions{});
  ASSERT_TRUE(remote.ok()) << remote.error().Message();
  for (const source::SampleSource* source :
       {static_cast<const source::SampleSource*>(&local),
        static_cast<const source::SampleSource*>(remote.value().get())}) {
    EXPECT_EQ(source->Key(0), "scan.v2");
    EXPECT_EQ(source->Key(1), "plain");
    const std::string name = source->MemberName(0, source::Member::kImage);
    EXPECT_TRUE(name.ends_with("shard-000000.tar:scan%2Ev2.jpg")) << name;
  }
  EXPECT_EQ(remote.value()->MemberName(1, source::Member::kMask),
            server.url() + "shard-000000.tar:plain.mask.png");
}

// A member whose bytes in the store are not the index's (damaged at rest,
// or rewritten after packing) fails its neighbours' coalesced read as a
// whole; asked alone, each of those samples is read, and only the damaged
// one is a bad sample, naming its member.
TEST_F(RemoteIndexTest, AMemberDamagedInTheStoreLosesOnlyItsOwnSample) {
  LoopbackHttpServer server(shards());
  RangeClientOptions client;
  client.retry.attempts = 2;
  client.retry.base_backoff_ms = 1;
  auto opened =
      RemoteShardsSource::Open(ParseObjectUrl(server.url() + source::kShardIndexFileName).value(),
                               client, ReadAheadOptions{});
  ASSERT_TRUE(opened.ok()) << opened.error().Message();
  RemoteShardsSource& remote = *opened.value();
  // A member's shard file, as the server serves it.
  const auto shard_of = [&](source::SampleId id, source::Member member) {
    const std::string name = remote.MemberName(id, member);
    const size_t from = server.url().size();
    return shards() / name.substr(from, name.find(':', from) - from);
  };
  // One byte in the middle of sample 1's photo, in the shard's file.
  const source::SampleId damaged = 1;
  const fs::path shard = shard_of(damaged, source::Member::kImage);
  const uint64_t at =
      remote.shard_catalog()->MemberOffset(damaged, source::Member::kImage) +
      static_cast<uint64_t>(*remote.MemberSize(damaged, source::Member::kImage) / 2);
  {
    std::fstream file(shard, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(static_cast<std::streamoff>(at));
    const char byte = static_cast<char>(file.get() ^ 0x5a);
    file.seekp(static_cast<std::streamoff>(at));
    file.put(byte);
  }

  std::vector<source::SampleId> order(remote.sample_count());
  for (source::SampleId id = 0; id < order.size(); ++id) order[id] = id;
  remote.Prefetch(order);
  source::ReadBuffer got(int64_t{1} << 20);
  for (const source::SampleId id : order) {
    for (const source::Member member : {source::Member::kImage, source::Member::kMask}) {
      SCOPED_TRACE(remote.MemberName(id, member));
      auto bytes = remote.Read(id, member, &got);
      if (id == damaged) {
        ASSERT_FALSE(bytes.ok());
        EXPECT_EQ(bytes.error().path, remote.MemberName(id, member));
        continue;
      }
      ASSERT_TRUE(bytes.ok()) << bytes.error().Message();
      // The member's bytes in its shard file (the damaged byte is in another).
      const std::vector<uint8_t> file = segfeed::testing::ReadAll(shard_of(id, member));
      const auto from = static_cast<ptrdiff_t>(remote.shard_catalog()->MemberOffset(id, member));
      EXPECT_TRUE(std::equal(bytes.value().begin(), bytes.value().end(), file.begin() + from,
                             file.begin() + from + *remote.MemberSize(id, member)));
    }
  }
}

}  // namespace
}  // namespace segfeed::remote
