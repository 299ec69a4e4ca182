#include "pack/shard_sequence.h"

#include <cstdio>
#include <system_error>
#include <utility>

#include "output/output_file.h"
#include "pack/dali_index.h"
#include "source/shard_samples.h"
#include "source/tar_scan.h"

namespace segfeed::pack {
namespace {

// Two end-of-archive blocks, padded to libarchive's 10 KiB records.
constexpr int64_t kTarEndBytes = 10240;

Error ShardError(const std::filesystem::path& shard, const std::string& detail) {
  return Error{ErrorKind::kIoError, shard.string(), detail};
}

std::optional<source::ShardCatalog::MemberEntry> Entry(const source::ShardCatalog& catalog,
                                                       source::SampleId id, source::Member member) {
  const source::ShardCatalog::MemberForm* form = catalog.FormOf(id, member);
  if (form == nullptr) return std::nullopt;
  const size_t i = source::MemberIndex(member);
  const source::SampleRecord& record = catalog.record(id);
  return source::ShardCatalog::MemberEntry{form->extension, form->kind,
                                           static_cast<int64_t>(catalog.MemberOffset(id, member)),
                                           static_cast<int64_t>(record.size[i]), record.digest[i]};
}

}  // namespace

std::string ShardFileName(const std::string& name, int64_t number) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "-%06lld.tar", static_cast<long long>(number));
  return name + digits;
}

ShardSequence::ShardSequence(std::filesystem::path folder, std::string name, ShardLimits limits)
    : folder_(std::move(folder)), name_(std::move(name)), limits_(limits) {}

ShardSequence::~ShardSequence() {
  if (writer_) {
    writer_.reset();
    std::error_code ignored;
    std::filesystem::remove(partial_, ignored);
  }
}

Status ShardSequence::StartShard() {
  const std::string file = ShardFileName(name_, static_cast<int64_t>(shards_.size()));
  partial_ = folder_ / ("." + file + ".partial");
  current_ = PackedShard();
  current_.path = folder_ / file;
  current_estimate_ = kTarEndBytes;
  std::error_code ignored;
  std::filesystem::remove(partial_, ignored);  // left by a run that was killed
  writer_.emplace();
  return writer_->Open(partial_);
}

Status ShardSequence::Add(const PackedSample& sample) {
  const std::string photo_name = sample.member_key + "." + sample.photo_extension;
  const std::string mask_name = sample.member_key + "." + sample.mask_extension;
  const std::string json_name = sample.member_key + ".json";
  const int64_t sample_bytes =
      TarMemberBytes(photo_name, static_cast<int64_t>(sample.photo.size())) +
      TarMemberBytes(mask_name, static_cast<int64_t>(sample.mask.size())) +
      TarMemberBytes(json_name, static_cast<int64_t>(sample.json.size()));
  if (writer_ && current_.samples > 0) {
    const bool full = limits_.samples_per_shard > 0
                          ? current_.samples >= limits_.samples_per_shard
                          : current_estimate_ + sample_bytes > limits_.shard_bytes;
    if (full) {
      if (Status finished = FinishShard(); !finished.ok()) return finished;
    }
  }
  if (!writer_) {
    if (Status started = StartShard(); !started.ok()) return started;
  }
  const auto json =
      std::span(reinterpret_cast<const uint8_t*>(sample.json.data()), sample.json.size());
  for (const auto& [name, bytes] :
       {std::pair{photo_name, sample.photo}, std::pair{mask_name, sample.mask},
        std::pair{json_name, json}}) {
    if (Status added = writer_->Add(name, bytes); !added.ok()) return added;
  }
  current_estimate_ += sample_bytes;
  ++current_.samples;
  if (sample.photo_error_samples > 0) {
    ++current_.reencoded_photos;
    current_.photo_squared_error += sample.photo_squared_error;
    current_.photo_error_samples += sample.photo_error_samples;
  }
  return {};
}

Status ShardSequence::Finish() { return writer_ ? FinishShard() : Status{}; }

Status ShardSequence::FinishShard() {
  Status finished = writer_->Finish();
  writer_.reset();
  if (finished.ok()) {
    std::error_code error;
    std::filesystem::rename(partial_, current_.path, error);
    if (error) finished = ShardError(current_.path, "cannot rename into place: " + error.message());
  }
  if (!finished.ok()) {
    std::error_code ignored;
    std::filesystem::remove(partial_, ignored);
    return finished;
  }
  // Read back: the shard must hold exactly the samples written, each whole.
  const source::TarScan scan = source::ScanTar(current_.path);
  const source::ShardListing listing = source::ListShardSamples({scan});
  if (scan.stopped) return *scan.stopped;
  if (!listing.errors.empty()) return listing.errors.front();
  if (!listing.problems.empty()) return listing.problems.front();  // a member that did not pair
  if (listing.catalog.sample_count() != static_cast<size_t>(current_.samples))
    return ShardError(current_.path,
                      "the shard reads back " + std::to_string(listing.catalog.sample_count()) +
                          " samples, " + std::to_string(current_.samples) + " were written");
  // A name DALI's format cannot hold costs that shard its DALI index, not
  // the dataset its shards.
  if (Result<std::string> dali = DaliIndexText(scan); dali.ok()) {
    std::filesystem::path dali_path = current_.path;
    dali_path.replace_extension(".idx");
    Result<output::OutputFile> dali_file = output::OutputFile::Prepare(dali_path);
    if (!dali_file.ok()) return dali_file.error();
    if (Status written = dali_file.value().Write(dali.value()); !written.ok()) return written;
  } else {
    current_.no_dali_index = dali.error();
  }
  if (Status added = AddToCatalog(listing.catalog); !added.ok()) return added;
  current_.bytes = scan.bytes;
  shards_.push_back(current_);
  if (on_shard) on_shard(shards_.back());
  return {};
}

Status ShardSequence::AddToCatalog(const source::ShardCatalog& shard_catalog) {
  Result<uint16_t> shard = catalog_.AddShard(shard_catalog.shards().front());
  if (!shard.ok()) return shard.error();
  for (source::SampleId id = 0; id < shard_catalog.sample_count(); ++id) {
    Status added = catalog_.AddSample(shard_catalog.Key(id), shard.value(),
                                      Entry(shard_catalog, id, source::Member::kImage),
                                      Entry(shard_catalog, id, source::Member::kMask));
    if (!added.ok()) return added;
  }
  return {};
}

}  // namespace segfeed::pack
