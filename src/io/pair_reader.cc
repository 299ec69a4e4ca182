#include "io/pair_reader.h"

#include <string>

namespace segfeed::internal {

PairReader::PairReader(const DecodeOptions& options)
    : jpeg_(options), gif_(options), threshold_(options.mask_threshold) {}

Status PairReader::Read(const SamplePair& pair, int target_width, int target_height) {
  const std::string image_path = pair.image_path.string();
  const std::string mask_path = pair.mask_path.string();

  mask_warning_.reset();
  auto image_bytes = image_file_.Read(pair.image_path);
  if (!image_bytes.ok()) return image_bytes.error();
  auto header = jpeg_.ReadHeader(image_bytes.value(), image_path);
  if (!header.ok()) return header.error();
  image_header_ = header.value();

  // The mask is decoded before the image because it is ~20x cheaper: a
  // size mismatch then costs no JPEG decode.
  auto mask_bytes = mask_file_.Read(pair.mask_path);
  if (!mask_bytes.ok()) return mask_bytes.error();
  if (Status status = gif_.Decode(mask_bytes.value(), mask_path, &mask_); !status.ok()) {
    return status;
  }
  if (mask_.width != image_header_.width || mask_.height != image_header_.height) {
    return Error{ErrorKind::kSizeMismatch, image_path,
                 "image is " + std::to_string(image_header_.width) + "x" +
                     std::to_string(image_header_.height) + " but its mask " + mask_path + " is " +
                     std::to_string(mask_.width) + "x" + std::to_string(mask_.height)};
  }

  if (mask_.used_more_than_two_colours) {
    mask_warning_ = Error{ErrorKind::kNonBinaryMask, mask_path,
                          "mask uses more than two palette colours; thresholded at luminance " +
                              std::to_string(threshold_)};
  }

  image_scale_ = jpeg_.ChooseScale(image_header_.width, image_header_.height, target_width,
                                   target_height);
  return jpeg_.Decode(image_bytes.value(), image_header_, image_scale_, image_path, &image_);
}

}  // namespace segfeed::internal
