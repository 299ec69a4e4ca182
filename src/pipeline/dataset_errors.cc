#include "pipeline/dataset_errors.h"

#include <string>
#include <utility>

namespace segfeed::pipeline {
namespace {

// Unpaired images named in the error that stops a kFail loader.
constexpr size_t kUnpairedListed = 5;

std::string Plural(size_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace

FileError UnpairedImagesError(const std::vector<Error>& missing, const std::string& noun) {
  Error error = missing.front();
  if (missing.size() > 1) {
    error.detail += "; " + Plural(missing.size() - 1, "more " + noun) + ":";
    for (size_t i = 1; i < missing.size() && i <= kUnpairedListed; ++i)
      error.detail += " " + missing[i].path;
    if (missing.size() > kUnpairedListed + 1) error.detail += " ...";
  }
  error.detail += " (on_bad_file = skip trains without them)";
  return FileError(std::move(error));
}

// Why a listing has no complete pair, with what was found and the layout
// that was expected.
std::string NoPairsMessage(const DatasetSpec& spec, const Dataset& dataset) {
  size_t images = 0, masks = 0, missing_images = 0, duplicates = 0, outside = 0, lost = 0;
  const Error* first_lost = nullptr;  // a shard that could not be read
  for (const Error& problem : dataset.problems) {
    switch (problem.kind) {
      case ErrorKind::kMissingMask:
        ++images;
        break;
      case ErrorKind::kMissingImage:
        ++missing_images;
        break;
      case ErrorKind::kDuplicateKey:
        ++duplicates;
        break;
      case ErrorKind::kOutsideRoot:
        ++outside;
        break;
      case ErrorKind::kIoError:
        if (lost++ == 0) first_lost = &problem;
        break;
      default:
        ++masks;
    }
  }
  std::string found = "dataset has no image with a mask: found " + Plural(images, "image") +
                      " without a mask, " + Plural(masks, "mask") + " without an image";
  if (missing_images > 0) found += ", " + Plural(missing_images, "listed image") + " missing";
  if (duplicates > 0) found += ", " + Plural(duplicates, "key") + " with two files";
  if (outside > 0) found += ", " + Plural(outside, "listed line") + " outside the root";
  if (first_lost)
    found += ", " + Plural(lost, "unreadable shard entry") + " (" + first_lost->Message() + ")";
  return found + " and " + Plural(dataset.ignored_count, "other file") +
         "; the rule: " + DescribeDatasetRule(spec);
}

}  // namespace segfeed::pipeline
