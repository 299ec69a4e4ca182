#include "segfeed/errors.h"

#include <string>
#include <utility>

namespace segfeed {

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kMissingMask:
      return "missing_mask";
    case ErrorKind::kOrphanMask:
      return "orphan_mask";
    case ErrorKind::kCorruptImage:
      return "corrupt_image";
    case ErrorKind::kCorruptMask:
      return "corrupt_mask";
    case ErrorKind::kSizeMismatch:
      return "size_mismatch";
    case ErrorKind::kNonBinaryMask:
      return "non_binary_mask";
    case ErrorKind::kUnsupportedFormat:
      return "unsupported_format";
    case ErrorKind::kTooLarge:
      return "too_large";
    case ErrorKind::kEmptyFile:
      return "empty_file";
    case ErrorKind::kIoError:
      return "io_error";
    case ErrorKind::kLabelOutOfRange:
      return "label_out_of_range";
    case ErrorKind::kSuspiciousMask:
      return "suspicious_mask";
    case ErrorKind::kMissingImage:
      return "missing_image";
    case ErrorKind::kDuplicateKey:
      return "duplicate_key";
    case ErrorKind::kOutsideRoot:
      return "outside_root";
  }
  return "unknown";
}

std::optional<ErrorKind> ErrorKindFromName(std::string_view name) {
  // kOutsideRoot is the last kind; tests/check round-trips every kind.
  for (int kind = 0; kind <= static_cast<int>(ErrorKind::kOutsideRoot); ++kind) {
    if (ErrorKindName(static_cast<ErrorKind>(kind)) == name) return static_cast<ErrorKind>(kind);
  }
  return std::nullopt;
}

std::string Error::Message() const {
  return path + ": " + detail + " [" + std::string(ErrorKindName(kind)) + "]";
}

FileError::FileError(Error error) : std::runtime_error(error.Message()), error_(std::move(error)) {}

}  // namespace segfeed
