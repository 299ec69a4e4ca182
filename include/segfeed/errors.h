#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "segfeed/export.h"

namespace segfeed {

// What went wrong with a file. The names returned by ErrorKindName() are
// stable: the checker prints them in its JSON report and scripts match them.
enum class ErrorKind {
  kMissingMask,        // image without a mask
  kOrphanMask,         // mask without an image
  kCorruptImage,       // the JPEG or PNG decoder refused the data
  kCorruptMask,        // the GIF or PNG decoder refused the data
  kSizeMismatch,       // image and mask differ in width or height
  kNonBinaryMask,      // the mask uses more than two palette colours
  kUnsupportedFormat,  // not the expected format, or a variant we refuse
  kTooLarge,           // header claims more pixels than the configured limit
  kEmptyFile,          // zero bytes
  kIoError,            // the file could not be opened, read or written
  // A label map holds a value that is neither a class id below num_classes
  // nor mask_ignore_value (without a label_map), or a colour mask_colors
  // does not list.
  kLabelOutOfRange,
  // Information from the checker: a binary mask set without any
  // foreground, or a palette whose colours say foreground where the rule
  // says background (an inverted palette).
  kSuspiciousMask,
  // A list file names a pair whose image does not exist.
  kMissingImage,
  // Two files give one key the same role ("a.jpg" and "a.JPG"): no pair is
  // made for the key, and both are named.
  kDuplicateKey,
  // A list file names a file outside its root (an absolute path, "..", a
  // symbolic link that leads elsewhere) without allow_outside_root: no pair
  // is made, and nothing there is read.
  kOutsideRoot,
};

// "missing_mask", "orphan_mask", "corrupt_image", ... (snake_case).
SEGFEED_EXPORT std::string_view ErrorKindName(ErrorKind kind);
// The kind ErrorKindName() names `name`, if one does.
SEGFEED_EXPORT std::optional<ErrorKind> ErrorKindFromName(std::string_view name);

// A problem with one file: which file, what kind of problem, and a detail a
// person can act on ("truncated GIF (read 812 of 4096 bytes)").
struct Error {
  ErrorKind kind = ErrorKind::kIoError;
  std::string path;
  std::string detail;

  // "<path>: <detail> [<kind>]", the form every message about a file takes.
  std::string Message() const;
};

// The field list of Error, as the other reported structs have theirs
// (segfeed/loader.h): calls fn("name", value) once per field, in order. The
// JSON reports, the Python dicts (stats()' skipped_files, pairs' problems)
// and the stubs take their keys from here. `kind` is ErrorKindName()'s
// std::string_view, `message` Message()'s std::string (a temporary: copy
// it if it must outlive the call).
template <typename Fn>
void ForEachField(const Error& e, Fn&& fn) {
  fn("path", e.path);
  fn("kind", ErrorKindName(e.kind));
  fn("detail", e.detail);
  fn("message", e.Message());
}

// Thrown from the public API when a stream stops on a bad file
// (OnBadFile::kFail). Carries the Error that stopped it.
class SEGFEED_EXPORT FileError : public std::runtime_error {
 public:
  explicit FileError(Error error);
  const Error& error() const noexcept { return error_; }

 private:
  Error error_;
};

// Thrown from Loader::Next() instead of waiting forever when the consumer
// holds every pool buffer: no buffer is left to load the next batch into.
// The usual cause is calling Next() while the previous batch's Lease is
// still alive with prefetch_batches = 1 (`batch = loader.Next();` keeps the
// old lease until the assignment). Release a lease, or raise
// prefetch_batches, and call Next() again: the loader is still usable.
class SEGFEED_EXPORT PoolExhausted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown from Loader::Next(timeout) when no batch was ready in time. Nothing
// changed: call Next() again for the same batch.
class SEGFEED_EXPORT NextTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown from constructors when an option is invalid. The message names the
// option and the bad value: "batch_size must be >= 1 (got 0)".
class SEGFEED_EXPORT ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A ConfigError for a value of the wrong type ("batch_size must be an
// integer (got '16')"); the Python binding raises it as TypeError.
class SEGFEED_EXPORT OptionTypeError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

}  // namespace segfeed
