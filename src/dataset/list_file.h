#pragma once

// A dataset's list file: VOC's ImageSets/Segmentation/train.txt (one key
// per line) or a two-column list of image and mask paths.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace segfeed::dataset {

// `path` as a list's duplicate check compares it: runs of '/' as one, "."
// parts and a trailing '/' dropped ("./a//b/." is "a/b"), which never
// makes a path name another file. ".." is kept: "link/.." need not be the
// folder the link is in; the listing compares the files themselves.
std::string NormalSpelling(std::string_view path);

struct ListEntry {
  int line = 0;             // 1-based, for messages
  std::string_view first;   // the key, or the image's path
  std::string_view second;  // the mask's path; empty in a list of keys
};

// The entries of a list file, in the file's order. Fields are separated by
// a tab when the line has one (so names may hold spaces), else by a comma,
// else by white space; fields are trimmed, '\r' line ends and a UTF-8 byte
// order mark are accepted, and blank lines and lines starting with '#' are
// skipped.
class ListFile {
 public:
  // Reads and parses `path`. Throws FileError (io_error) when it cannot be
  // read or is not a regular file ("not a regular file (a FIFO)": a FIFO,
  // a device or a folder is refused by what it is, never waited on or
  // read), and ConfigError naming the file and the line for a line with
  // more than two fields, a file mixing one- and two-field lines, a file
  // with no entry, and a key (or image path) listed twice (naming both
  // lines), also under another NormalSpelling() ("./a" after "a"). A mask
  // path may be listed again: images may share a mask.
  explicit ListFile(const std::filesystem::path& path);

  const std::vector<ListEntry>& entries() const { return entries_; }
  // Whether every line names two paths (else every line is one key).
  bool two_columns() const { return two_columns_; }

 private:
  std::string text_;  // the file; entries point into it
  std::vector<ListEntry> entries_;
  bool two_columns_ = false;
};

}  // namespace segfeed::dataset
