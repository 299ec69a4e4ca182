#include "pack/member_key.h"

#include <algorithm>

#include "output/utf8.h"

namespace segfeed::pack {

std::string MemberKeyOf(std::string_view dataset_key) {
  const size_t last = dataset_key.rfind('/') + 1;  // 0 without a '/'
  std::string key(dataset_key.substr(0, last));
  for (const char c : dataset_key.substr(last)) {
    if (c == '.') {
      key += "%2E";
    } else if (c == '%') {
      key += "%25";
    } else {
      key += c;
    }
  }
  return key;
}

std::string DatasetKeyOf(std::string_view member_key) {
  const size_t last = member_key.rfind('/') + 1;
  std::string key(member_key.substr(0, last));
  for (size_t i = last; i < member_key.size(); ++i) {
    const std::string_view rest = member_key.substr(i, 3);
    if (rest == "%2E") {
      key += '.';
      i += 2;
    } else if (rest == "%25") {
      key += '%';
      i += 2;
    } else {
      key += member_key[i];
    }
  }
  return key;
}

std::optional<std::string> UnusableKeyReason(std::string_view dataset_key) {
  if (dataset_key.empty()) return "an empty key";
  if (dataset_key.front() == '/') return "an absolute path";
  if (!output::IsValidUtf8(dataset_key)) return "not UTF-8";
  size_t begin = 0;
  while (begin <= dataset_key.size()) {
    const size_t end = std::min(dataset_key.find('/', begin), dataset_key.size());
    const std::string_view part = dataset_key.substr(begin, end - begin);
    if (part.empty() || part == "." || part == "..")
      return "a key with an empty, '.' or '..' folder";
    begin = end + 1;
  }
  return std::nullopt;
}

}  // namespace segfeed::pack
