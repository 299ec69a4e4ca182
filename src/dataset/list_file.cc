#include "dataset/list_file.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <unordered_map>

#include "segfeed/errors.h"
#include "source/file_descriptor.h"
#include "source/file_system.h"

namespace segfeed::dataset {
namespace {

// A list names every file of a dataset; 1 GiB of names is far beyond any
// real one and keeps a wrong path (a video, /dev/zero) from being read whole.
constexpr std::uintmax_t kMaxListBytes = std::uintmax_t{1} << 30;

std::string_view Trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\v\f");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r\v\f") - begin + 1);
}

// Splits a trimmed, non-empty line into its fields.
std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> fields;
  const char separator = line.find('\t') != std::string_view::npos  ? '\t'
                         : line.find(',') != std::string_view::npos ? ','
                                                                    : ' ';
  size_t begin = 0;
  while (begin <= line.size()) {
    size_t end = line.find(separator, begin);
    if (end == std::string_view::npos) end = line.size();
    const std::string_view field = Trim(line.substr(begin, end - begin));
    // Runs of spaces are one separator; an empty field between tabs or
    // commas is kept, so "a,,b" is three fields, not two.
    if (!field.empty() || separator != ' ') fields.push_back(field);
    begin = end + 1;
  }
  return fields;
}

}  // namespace

std::string NormalSpelling(std::string_view path) {
  std::string normal;
  if (path.starts_with('/')) normal.push_back('/');
  while (!path.empty()) {
    const size_t end = std::min(path.find('/'), path.size());
    const std::string_view part = path.substr(0, end);
    if (!part.empty() && part != ".") {
      if (!normal.empty() && normal.back() != '/') normal.push_back('/');
      normal.append(part);
    }
    path.remove_prefix(end == path.size() ? end : end + 1);
  }
  return normal.empty() ? "." : normal;
}

ListFile::ListFile(const std::filesystem::path& path) {
  const std::string name = path.string();
  auto fail = [&name](const std::string& why) {
    throw FileError(Error{ErrorKind::kIoError, name, "cannot read list file: " + why});
  };
  // open(2) with O_NONBLOCK and then fstat(2), as FileReader does: a FIFO
  // would otherwise wait for a writer, and a device would be read without
  // end; both are refused by what they are, before any read.
  int opened = -1;
  do {
    opened = source::FileSystemInUse().Open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  } while (opened < 0 && errno == EINTR);
  source::FileDescriptor fd(opened);
  if (fd.get() < 0) fail(std::strerror(errno));
  struct stat info {};
  if (source::FileSystemInUse().Fstat(fd.get(), &info) != 0) fail(std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    fail("not a regular file (" + std::string(source::FileTypeName(info.st_mode)) + ")");
  const auto bytes = static_cast<std::uintmax_t>(info.st_size);
  if (bytes > kMaxListBytes) fail("larger than 1 GiB (" + std::to_string(bytes) + " bytes)");
  // Read to the end, not only st_size bytes: a list still being written
  // is read as it is now, never cut mid-line where fstat(2) saw its end.
  text_.reserve(bytes);
  char chunk[64 * 1024];
  for (;;) {
    const ssize_t n = source::FileSystemInUse().Read(fd.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(std::strerror(errno));
    if (n == 0) break;
    if (text_.size() + static_cast<size_t>(n) > kMaxListBytes) fail("larger than 1 GiB");
    text_.append(chunk, static_cast<size_t>(n));
  }

  auto bad_line = [&name](int line, const std::string& why) {
    throw ConfigError(name + ": line " + std::to_string(line) + ": " + why);
  };
  std::string_view rest(text_);
  if (rest.starts_with("\xEF\xBB\xBF")) rest.remove_prefix(3);
  int columns = 0, first_line = 0;
  // Where each key (or image path) was first listed, by its
  // NormalSpelling(), to name both lines of a repeat. A mask may be listed
  // again: images may share one.
  struct FirstListed {
    int line;
    std::string_view written;
  };
  std::unordered_map<std::string, FirstListed> listed;
  for (int number = 1; !rest.empty(); ++number) {
    const size_t end = rest.find('\n');
    const std::string_view line = Trim(rest.substr(0, end));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    if (line.empty() || line.front() == '#') continue;
    const std::vector<std::string_view> fields = Fields(line);
    if (fields.size() > 2) {
      bad_line(number, "expected a key, or an image path and a mask path, but found " +
                           std::to_string(fields.size()) + " fields");
    }
    for (std::string_view field : fields) {
      if (field.empty()) bad_line(number, "an empty field");
      if (field.find('\0') != std::string_view::npos) bad_line(number, "a NUL byte in a name");
    }
    if (columns == 0) {
      columns = static_cast<int>(fields.size());
      first_line = number;
    } else if (static_cast<int>(fields.size()) != columns) {
      bad_line(number, std::to_string(fields.size()) + (fields.size() == 1 ? " field" : " fields") +
                           ", but line " + std::to_string(first_line) + " has " +
                           std::to_string(columns) +
                           ": a list is all keys or all (image, mask) pairs");
    }
    const auto [it, inserted] =
        listed.try_emplace(NormalSpelling(fields[0]), FirstListed{number, fields[0]});
    if (!inserted) {
      const FirstListed& first = it->second;
      bad_line(number,
               "'" + std::string(fields[0]) + "' is listed again (first on line " +
                   std::to_string(first.line) +
                   (first.written == fields[0] ? "" : " as '" + std::string(first.written) + "'") +
                   ")");
    }
    entries_.push_back({number, fields[0], columns == 2 ? fields[1] : std::string_view()});
  }
  if (entries_.empty()) throw ConfigError(name + ": the list file names no pair");
  two_columns_ = columns == 2;
}

}  // namespace segfeed::dataset
