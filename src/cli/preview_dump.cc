#include "cli/preview_dump.h"

#include <climits>
#include <system_error>
#include <vector>

#include "cli/report_json.h"
#include "digest.h"
#include "output/image_writers.h"
#include "output/output_file.h"
#include "output/utf8.h"

namespace segfeed::tools {
namespace {

constexpr std::string_view kImageSuffix = "_image.png";
constexpr std::string_view kMaskSuffix =
    "_mask.png";  // shorter: what fits with the image suffix fits with it

}  // namespace

std::string PreviewDumpName(std::string_view stem) {
  constexpr size_t kMaxName = NAME_MAX - kImageSuffix.size();
  if (stem.size() <= kMaxName) return std::string(stem);
  Digest digest;
  digest.Update(stem.data(), stem.size());
  // Appending piecewise sidesteps a false -Wrestrict in GCC 12 for "~" + s.
  std::string tag = "~";
  tag += digest.Hex().substr(0, 8);
  std::string name(Utf8Prefix(stem, kMaxName - tag.size()));
  name += tag;
  return name;
}

std::string PreviewParamsJson(std::span<const PreviewSample> samples, uint64_t seed,
                              int64_t epoch) {
  Json json = Json::object();
  json["seed"] = seed;
  json["epoch"] = epoch;
  if (!samples.empty()) {
    json["width"] = samples.front().width;
    json["height"] = samples.front().height;
  }
  Json& entries = json["samples"] = Json::array();
  for (size_t i = 0; i < samples.size(); ++i) {
    const PreviewSample& sample = samples[i];
    const std::string name = PreviewDumpName(sample.stem);
    Json entry = Json::object();
    entry["index"] = i;
    entry["sample_id"] = sample.sample_id;
    SetText(&entry, "stem", sample.stem);
    SetText(&entry, "image", name + std::string(kImageSuffix));
    SetText(&entry, "mask", name + std::string(kMaskSuffix));
    // The shortest text that reads back as exactly each value, so a reader
    // can compare the parameters for equality (nlohmann writes doubles so).
    AddFields(&entry, sample.params);
    entries.push_back(std::move(entry));
  }
  return DumpJson(json);
}

internal::Status WritePreviewDump(const std::filesystem::path& dir,
                                  std::span<const PreviewSample> samples, uint64_t seed,
                                  int64_t epoch) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
    return Error{ErrorKind::kIoError, dir.string(), "cannot create directory: " + error.message()};
  // Each file is complete or absent: a failed dump never leaves a cut PNG
  // or a cut params.json, nor destroys the file of an earlier dump.
  auto write = [&](const std::string& name, auto write_to) -> internal::Status {
    internal::Result<OutputFile> file = OutputFile::Prepare(dir / name);
    if (!file.ok()) return file.error();
    return write_to(file.value());
  };
  std::vector<uint8_t> mask_255;
  for (const PreviewSample& sample : samples) {
    const std::string name = PreviewDumpName(sample.stem);
    internal::Status status = write(name + std::string(kImageSuffix), [&](const OutputFile& file) {
      return WritePng(file, sample.rgb.data(), sample.width, sample.height, 3);
    });
    if (!status.ok()) return status;
    // A binary mask as 0/255 so it is visible in any image viewer; a label
    // map as its ids (grey), as a training script would read it back.
    const uint8_t* mask = sample.mask.data();
    if (sample.num_classes == 0) {
      mask_255.resize(sample.mask.size());
      for (size_t i = 0; i < mask_255.size(); ++i) mask_255[i] = sample.mask[i] ? 255 : 0;
      mask = mask_255.data();
    }
    status = write(name + std::string(kMaskSuffix), [&](const OutputFile& file) {
      return WritePng(file, mask, sample.width, sample.height, 1);
    });
    if (!status.ok()) return status;
  }
  return write("params.json", [&](const OutputFile& file) {
    return file.Write(PreviewParamsJson(samples, seed, epoch));
  });
}

}  // namespace segfeed::tools
