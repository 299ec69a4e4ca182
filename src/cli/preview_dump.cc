#include "cli/preview_dump.h"

#include <climits>
#include <string>
#include <system_error>
#include <vector>

#include "cli/report_json.h"
#include "digest.h"
#include "output/image_writers.h"
#include "output/output_file.h"
#include "output/utf8.h"

namespace segfeed::cli {
namespace {

constexpr std::string_view kImageSuffix = "_image.png";
constexpr std::string_view kMaskSuffix =
    "_mask.png";  // shorter: what fits with the image suffix fits with it

constexpr size_t kMaxName = NAME_MAX - kImageSuffix.size();

// `name` cut at a character so that '~' and 8 hex digits of the digest of
// `tagged` fit after it within kMaxName bytes, then that tag.
std::string TaggedName(std::string_view name, std::string_view tagged) {
  Digest digest;
  digest.Update(tagged.data(), tagged.size());
  // Appending piecewise sidesteps a false -Wrestrict in GCC 12 for "~" + s.
  std::string tag = "~";
  tag += digest.Hex().substr(0, 8);
  std::string cut(output::Utf8Prefix(name, kMaxName - tag.size()));
  cut += tag;
  return cut;
}

// Makes each folder of `relative` (plain names, none "." or "..") under
// `dir`, one level at a time. An existing folder is entered; a link or a
// file in the way is refused, since a link could lead out of `dir` (into
// the dataset, say) and the dump writes only inside it.
Status MakeSubFolders(const std::filesystem::path& dir, const std::filesystem::path& relative) {
  std::filesystem::path folder = dir;
  for (const std::filesystem::path& part : relative) {
    folder /= part;
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::symlink_status(folder, error);
    if (std::filesystem::is_directory(status)) continue;
    if (std::filesystem::is_symlink(status)) {
      return Error{ErrorKind::kIoError, folder.string(),
                   "is a symbolic link, which could lead out of the dump folder: remove it or "
                   "dump elsewhere"};
    }
    if (std::filesystem::exists(status)) {
      return Error{ErrorKind::kIoError, folder.string(), "is in the way and not a folder"};
    }
    std::filesystem::create_directory(folder, error);
    if (error) {
      return Error{ErrorKind::kIoError, folder.string(),
                   "cannot create directory: " + error.message()};
    }
  }
  return {};
}

}  // namespace

std::string PreviewDumpName(std::string_view stem) {
  if (stem.size() <= kMaxName) return std::string(stem);
  return TaggedName(stem, stem);
}

std::string PreviewDumpPath(std::string_view stem) {
  const size_t slash = stem.rfind('/');
  if (slash == std::string_view::npos) return PreviewDumpName(stem);
  // Empty, "." and ".." parts are dropped ("/abs/x", "a//b", "../x" from a
  // list's paths): what is left stays inside the dump folder, and the tag
  // of the whole stem keeps "a//b" and "a/b" apart.
  std::string folders;
  bool dropped = false;
  std::string_view rest = stem.substr(0, slash);
  for (;;) {
    const size_t end = rest.find('/');
    const std::string_view part = rest.substr(0, end);
    if (part.empty() || part == "." || part == "..") {
      dropped = true;
    } else {
      folders.append(part);
      folders.push_back('/');
    }
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  const std::string_view name = stem.substr(slash + 1);
  folders += dropped || name.size() > kMaxName ? TaggedName(name, stem) : std::string(name);
  return folders;
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
    const std::string name = PreviewDumpPath(sample.stem);
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

Status WritePreviewDump(const std::filesystem::path& dir, std::span<const PreviewSample> samples,
                        uint64_t seed, int64_t epoch) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
    return Error{ErrorKind::kIoError, dir.string(), "cannot create directory: " + error.message()};
  // Each file is complete or absent: a failed dump never leaves a cut PNG
  // or a cut params.json, nor destroys the file of an earlier dump.
  auto write = [&](const std::string& name, auto write_to) -> Status {
    Result<output::OutputFile> file = output::OutputFile::Prepare(dir / name);
    if (!file.ok()) return file.error();
    return write_to(file.value());
  };
  std::vector<uint8_t> mask_255;
  for (const PreviewSample& sample : samples) {
    const std::string name = PreviewDumpPath(sample.stem);
    Status status = MakeSubFolders(dir, std::filesystem::path(name).parent_path());
    if (!status.ok()) return status;
    status = write(name + std::string(kImageSuffix), [&](const output::OutputFile& file) {
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
    status = write(name + std::string(kMaskSuffix), [&](const output::OutputFile& file) {
      return WritePng(file, mask, sample.width, sample.height, 1);
    });
    if (!status.ok()) return status;
  }
  return write("params.json", [&](const output::OutputFile& file) {
    return file.Write(PreviewParamsJson(samples, seed, epoch));
  });
}

}  // namespace segfeed::cli
