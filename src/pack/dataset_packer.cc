#include "pack/dataset_packer.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <system_error>

#include <nlohmann/json.hpp>

#include "check/check_schedule.h"
#include "check/cross_file_checks.h"
#include "check/file_checker.h"
#include "io/planned_source.h"
#include "pack/member_key.h"
#include "pack/photo_reencode.h"
#include "segfeed/option_table.h"
#include "source/files_source.h"
#include "source/read_buffer.h"
#include "source/shard_index.h"
#include "source/shard_samples.h"

namespace segfeed::pack {
namespace {

// Pairs checked at a time: enough to keep every thread busy, few enough
// that their outcomes stay small.
constexpr size_t kChunkPairs = 256;

void ValidatePackOptions(const PackOptions& options) {
  if (options.output.empty()) throw ConfigError("output must name a folder");
  if (options.name.empty() || options.name.find('/') != std::string::npos)
    throw ConfigError("name must be a file name without '/' (got '" + options.name + "')");
  if (options.limits.shard_bytes < 1 || options.limits.samples_per_shard < 0)
    throw ConfigError("shard_bytes must be >= 1 and samples_per_shard >= 0");
  if (options.threads < 0) throw ConfigError("threads must be >= 0");
  if (options.photo_quality < 1 || options.photo_quality > 100)
    throw ConfigError("photo_quality must be in [1, 100] (got " +
                      std::to_string(options.photo_quality) + ")");
}

// "jpg" of "a/b.JPG".
std::string ExtensionOf(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  if (!extension.empty()) extension.erase(0, 1);
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}

class Packer {
 public:
  Packer(const DatasetSpec& spec, const PackOptions& options)
      : spec_(spec), options_(options), read_buffer_(options.decode.max_file_bytes) {
    check_options_.decode = options.decode;
    check_options_.statistics = check::ChannelStatistics::kBlockMeans;  // 1/8 scale
    check_options_.threads = options.threads;
  }

  PackReport Run();

 private:
  // The problems of pair `pair` (jobs 2i and 2i+1 of its chunk).
  std::vector<Error> PairProblems(const std::vector<check::FileJob>& jobs,
                                  const std::vector<check::FileOutcome>& outcomes, size_t i,
                                  const SamplePair& pair) const;
  // Reads the pair's files and writes it to the shards.
  Status PackPair(const SamplePair& pair);
  void PackChunk(size_t begin, size_t end);

  const DatasetSpec& spec_;
  const PackOptions& options_;
  check::CheckOptions check_options_;
  Dataset dataset_;
  std::optional<source::FilesSource> files_;
  io::PlannedSource plan_;
  int64_t budget_bytes_ = 0;
  std::optional<ShardSequence> shards_;
  int64_t written_bytes_ = 0;  // of the shards finished so far
  source::ShardIndexDataset index_dataset_;
  source::ReadBuffer read_buffer_;
  PackReport report_;
};

std::vector<Error> Packer::PairProblems(const std::vector<check::FileJob>& jobs,
                                        const std::vector<check::FileOutcome>& outcomes, size_t i,
                                        const SamplePair& pair) const {
  std::vector<Error> problems;
  for (size_t job = 2 * i; job < 2 * i + 2; ++job) {
    if (outcomes[job].error) problems.push_back(*outcomes[job].error);
  }
  if (auto mismatch = check::PairSizeMismatch(jobs, outcomes, 2 * i)) problems.push_back(*mismatch);
  // The member names readers take as photo and mask (MemberRoles' rule).
  const source::MemberRoles roles;
  const auto has = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  if (!has(roles.photo, ExtensionOf(pair.image_path)) ||
      !has(roles.mask, "mask." + ExtensionOf(pair.mask_path))) {
    problems.push_back(Error{ErrorKind::kUnsupportedFormat, pair.image_path.string(),
                             "a shard holds photos as .jpg, .jpeg, .png or .gif and masks as "
                             ".png or .gif; its mask is " +
                                 pair.mask_path.string()});
  }
  if (auto unusable = UnusableKeyReason(pair.stem)) {
    problems.push_back(
        Error{ErrorKind::kOutsideRoot, pair.image_path.string(),
              "its key '" + pair.stem + "' cannot name a member of a shard: " + *unusable});
  }
  return problems;
}

Status Packer::PackPair(const SamplePair& pair) {
  Result<std::span<const uint8_t>> photo = source::ReadWholeFile(pair.image_path, &read_buffer_);
  if (!photo.ok()) return photo.error();
  const std::vector<uint8_t> photo_bytes(photo.value().begin(), photo.value().end());
  Result<std::span<const uint8_t>> mask = source::ReadWholeFile(pair.mask_path, &read_buffer_);
  if (!mask.ok()) return mask.error();

  PackedSample sample;
  sample.member_key = MemberKeyOf(pair.stem);
  sample.photo_extension = ExtensionOf(pair.image_path);
  sample.mask_extension = "mask." + ExtensionOf(pair.mask_path);
  sample.photo = photo_bytes;
  sample.mask = mask.value();
  nlohmann::json json = {
      {"key", pair.stem},
      {"photo", {{"path", pair.image_path.generic_string()}, {"bytes", photo_bytes.size()}}},
      {"mask", {{"path", pair.mask_path.generic_string()}, {"bytes", mask.value().size()}}}};
  std::optional<ReencodedPhoto> reencoded;
  if (options_.photo_codec == PhotoCodec::kJpeg && sample.photo_extension == "png") {
    Result<ReencodedPhoto> jpeg =
        ReencodePngAsJpeg(photo_bytes, options_.photo_quality, pair.image_path.string());
    if (!jpeg.ok()) return jpeg.error();
    reencoded = std::move(jpeg).value();
    sample.photo =
        std::span(reinterpret_cast<const uint8_t*>(reencoded->jpeg.data()), reencoded->jpeg.size());
    sample.photo_extension = "jpg";
    sample.photo_squared_error = reencoded->squared_error;
    sample.photo_error_samples = reencoded->samples;
    json["photo"]["stored_as"] = {
        {"codec", "jpeg"}, {"quality", options_.photo_quality}, {"bytes", reencoded->jpeg.size()}};
  }
  sample.json = json.dump();
  if (sample.member_key != pair.stem) {
    // Samples are numbered in the order they are packed.
    index_dataset_.original_keys.emplace_back(static_cast<source::SampleId>(report_.pairs_packed),
                                              pair.stem);
  }
  if (Status added = shards_->Add(sample); !added.ok()) return added;
  ++report_.pairs_packed;
  return {};
}

void Packer::PackChunk(size_t begin, size_t end) {
  std::vector<check::FileJob> jobs;
  std::vector<SamplePair> pairs;
  for (size_t p = begin; p < end; ++p) {
    pairs.push_back(dataset_.pairs[p]);
    jobs.push_back({pairs.back().image_path, check::FileRole::kImage, static_cast<int64_t>(p)});
    jobs.push_back({pairs.back().mask_path, check::FileRole::kMask, static_cast<int64_t>(p)});
  }
  check::ClassSums class_sums;
  const std::vector<check::FileOutcome> outcomes =
      check::CheckFiles(jobs, check_options_, plan_, budget_bytes_, &*files_, &class_sums);
  for (size_t i = 0; i < pairs.size() && !report_.failure; ++i) {
    std::vector<Error> problems = PairProblems(jobs, outcomes, i, pairs[i]);
    if (!problems.empty() && options_.on_bad_pair == OnBadPair::kFail) {
      report_.failure = problems.front();
    } else if (!problems.empty()) {
      report_.left_out.insert(report_.left_out.end(), problems.begin(), problems.end());
    } else if (Status packed = PackPair(pairs[i]); !packed.ok()) {
      report_.failure = packed.error();
    }
    if (options_.progress)
      options_.progress(static_cast<int64_t>(begin + i + 1), report_.pairs_listed, written_bytes_);
  }
}

PackReport Packer::Run() {
  try {
    dataset_ = ListDataset(spec_);
  } catch (const FileError& e) {
    report_.failure = e.error();
    return report_;
  }
  report_.pairs_listed = static_cast<int64_t>(dataset_.pairs.size());
  if (!dataset_.problems.empty() && options_.on_bad_pair == OnBadPair::kFail) {
    report_.failure = dataset_.problems.front();
    return report_;
  }
  report_.left_out = dataset_.problems;
  files_.emplace(dataset_.pairs);
  if (auto planned = io::PlanSourceFromHeaders(*files_, options_.decode); planned.ok())
    plan_ = planned.value();
  budget_bytes_ = check::FileChecker::DecodeBudget(check_options_, plan_);
  std::error_code error;
  std::filesystem::create_directories(options_.output, error);
  shards_.emplace(options_.output, options_.name, options_.limits);
  shards_->on_shard = [this](const PackedShard& shard) {
    written_bytes_ += shard.bytes;
    if (options_.on_shard) options_.on_shard(shard);
  };
  for (size_t begin = 0; begin < dataset_.pairs.size() && !report_.failure; begin += kChunkPairs)
    PackChunk(begin, std::min(begin + kChunkPairs, dataset_.pairs.size()));
  if (!report_.failure) {
    if (Status finished = shards_->Finish(); !finished.ok()) report_.failure = finished.error();
  }
  report_.shards = shards_->shards();
  for (const PackedShard& shard : report_.shards) report_.shard_bytes += shard.bytes;
  if (report_.failure) return report_;
  index_dataset_.options = LabelOptionsOf(options_.decode);
  if (options_.photo_codec == PhotoCodec::kJpeg) {
    index_dataset_.options.emplace_back("photo_codec", "jpeg");
    index_dataset_.options.emplace_back("photo_quality", std::to_string(options_.photo_quality));
  }
  const std::filesystem::path index = options_.output / source::kShardIndexFileName;
  if (Status written = source::WriteShardIndex(shards_->catalog(), index, index_dataset_);
      !written.ok()) {
    report_.failure = written.error();
    return report_;
  }
  report_.index = index;
  return report_;
}

// Whether class_names' text ("road,sidewalk,...") reads back as `names`:
// not when there are none, nor when a name would split (a ','), change (a
// space at an end) or make the text read as a file's path (a '/', ".txt").
bool NamesReadBack(const std::vector<std::string>& names) {
  if (names.empty() || (names.size() == 1 && names[0] == "none")) return false;
  for (const std::string& name : names) {
    if (name.empty() || name.find_first_of(",/") != std::string::npos ||
        std::isspace(static_cast<unsigned char>(name.front())) ||
        std::isspace(static_cast<unsigned char>(name.back())))
      return false;
  }
  return !names.back().ends_with(".txt");
}

}  // namespace

std::vector<std::filesystem::path> ExistingShardFiles(const std::filesystem::path& folder,
                                                      const std::string& name) {
  std::vector<std::filesystem::path> found;
  std::error_code error;
  std::filesystem::directory_iterator entries(folder, error);
  if (error) return found;
  // <name>-NNNNNN.tar or .idx: six digits, as the writer names them.
  const auto is_shard_file = [&name](const std::string& file) {
    const std::string prefix = name + "-";
    if (file.size() != prefix.size() + 10 || file.compare(0, prefix.size(), prefix) != 0)
      return false;
    const std::string_view digits(file.data() + prefix.size(), 6);
    const std::string_view extension(file.data() + prefix.size() + 6, 4);
    return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
           (extension == ".tar" || extension == ".idx");
  };
  for (const auto& entry : entries) {
    const std::string file = entry.path().filename().string();
    if (file == source::kShardIndexFileName || is_shard_file(file)) found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<std::pair<std::string, std::string>> LabelOptionsOf(const DecodeOptions& decode) {
  LoaderOptions options;
  options.decode = decode;
  // Every one, defaults included: the index then means the same to a
  // segfeed whose defaults have changed.
  std::vector<std::pair<std::string, std::string>> recorded;
  for (const char* name : {"mask_mode", "num_classes", "mask_ignore_value", "ignore_index",
                           "label_map", "mask_colors", "mask_foreground", "mask_threshold"}) {
    if (const OptionSpec* spec = FindOption(name)) recorded.emplace_back(name, spec->Text(options));
  }
  if (const OptionSpec* spec = FindOption("class_names");
      spec != nullptr && NamesReadBack(decode.class_names)) {
    recorded.emplace_back("class_names", spec->Text(options));
  }
  return recorded;
}

PackReport PackDataset(const DatasetSpec& spec, const PackOptions& options) {
  ValidatePackOptions(options);
  const std::vector<std::filesystem::path> before =
      ExistingShardFiles(options.output, options.name);
  PackReport report = Packer(spec, options).Run();
  if (report.failure) return report;
  // Shards of an earlier, longer run would read as part of this dataset.
  for (const std::filesystem::path& old : before) {
    const bool written =
        std::any_of(report.shards.begin(), report.shards.end(), [&](const PackedShard& shard) {
          std::filesystem::path dali = shard.path;
          dali.replace_extension(".idx");
          return old == shard.path || old == dali;
        });
    std::error_code ignored;
    if (!written && old.filename() != source::kShardIndexFileName)
      std::filesystem::remove(old, ignored);
  }
  return report;
}

}  // namespace segfeed::pack
