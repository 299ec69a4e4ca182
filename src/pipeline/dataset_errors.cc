#include "pipeline/dataset_errors.h"

#include <string>
#include <utility>

namespace segfeed::internal {
namespace {

// Unpaired images named in the error that stops a kFail loader.
constexpr size_t kUnpairedListed = 5;

std::string Plural(size_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace

// What a Loader with OnBadFile::kFail says about images without a mask:
// the first one as the error, the next few and the count in its detail.
FileError UnpairedImagesError(const std::vector<Error>& missing) {
  Error error = missing.front();
  if (missing.size() > 1) {
    error.detail += "; " + Plural(missing.size() - 1, "more image") + " without a mask:";
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
  size_t images = 0, masks = 0;
  for (const Error& problem : dataset.problems) {
    (problem.kind == ErrorKind::kMissingMask ? images : masks) += 1;
  }
  auto extensions = [](const std::vector<std::string>& list) {
    std::string joined;
    for (const std::string& extension : list) joined += (joined.empty() ? "" : "/") + extension;
    return joined;
  };
  return "dataset has no image with a mask: found " + Plural(images, "image") + " (" +
         extensions(spec.image_extensions) + ") in " + spec.image_dir.string() + ", " +
         Plural(masks, "mask") + " (" + extensions(spec.mask_extensions) + ") in " +
         spec.mask_dir.string() + " and " + Plural(dataset.ignored.size(), "other file") +
         "; an image <stem>" + spec.image_extensions.front() + " pairs with the mask <stem>" +
         spec.mask_suffix + spec.mask_extensions.front();
}

}  // namespace segfeed::internal
