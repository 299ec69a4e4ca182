#include "remote/object_url.h"

#include <utility>

namespace segfeed::remote {
namespace {

constexpr std::string_view kSchemes[] = {"s3://", "http://", "https://"};

bool StartsWith(std::string_view text, std::string_view start) {
  return text.substr(0, start.size()) == start;
}

Error UrlError(std::string_view text, std::string detail) {
  return Error{ErrorKind::kIoError, std::string(text), std::move(detail)};
}

std::string_view SchemePrefix(ObjectUrl::Scheme scheme) {
  return kSchemes[static_cast<int>(scheme)];
}

}  // namespace

std::string ObjectUrl::ToString() const {
  return std::string(SchemePrefix(scheme)) + authority + "/" + key;
}

ObjectUrl ObjectUrl::Sibling(std::string_view name) const {
  ObjectUrl sibling = *this;
  const size_t slash = key.rfind('/');
  sibling.key =
      (slash == std::string::npos ? std::string() : key.substr(0, slash + 1)) + std::string(name);
  return sibling;
}

bool IsObjectUrl(std::string_view text) {
  for (std::string_view scheme : kSchemes) {
    if (StartsWith(text, scheme)) return true;
  }
  return false;
}

Result<ObjectUrl> ParseObjectUrl(std::string_view text) {
  ObjectUrl url;
  std::string_view rest;
  bool known = false;
  for (int i = 0; i < 3 && !known; ++i) {
    if (StartsWith(text, kSchemes[i])) {
      url.scheme = static_cast<ObjectUrl::Scheme>(i);
      rest = text.substr(kSchemes[i].size());
      known = true;
    }
  }
  if (!known) return UrlError(text, "not an object URL (s3://, http:// or https://)");
  const size_t slash = rest.find('/');
  url.authority = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) url.key = std::string(rest.substr(slash + 1));
  if (url.authority.empty())
    return UrlError(text, url.is_s3() ? "no bucket after s3://" : "no host in the URL");
  if (url.authority.find('@') != std::string::npos) {
    // Not repeated: the text may hold a password.
    return Error{ErrorKind::kIoError, std::string(SchemePrefix(url.scheme)) + "...",
                 "credentials in a URL are refused: give them in the environment "
                 "(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY or AWS_PROFILE)"};
  }
  if (url.is_s3() && url.authority.find_first_of(":?#") != std::string::npos)
    return UrlError(text, "'" + url.authority + "' is not a bucket name");
  if (url.key.find_first_of("?#") != std::string::npos)
    return UrlError(text, "a query or fragment in an object URL is not supported");
  return url;
}

std::string PercentEncodeKey(std::string_view key) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  encoded.reserve(key.size());
  for (const char c : key) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
        (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      encoded += c;
    } else {
      encoded += '%';
      encoded += kHex[byte >> 4];
      encoded += kHex[byte & 0xF];
    }
  }
  return encoded;
}

std::string RequestUrl(const ObjectUrl& object, std::string_view endpoint, std::string_view region,
                       Addressing addressing) {
  const std::string key = PercentEncodeKey(object.key);
  if (!object.is_s3())
    return std::string(SchemePrefix(object.scheme)) + object.authority + "/" + key;
  std::string base = !endpoint.empty() ? std::string(endpoint)
                                       : "https://s3." + std::string(region) + ".amazonaws.com";
  while (!base.empty() && base.back() == '/') base.pop_back();
  const bool dotted = object.authority.find('.') != std::string::npos;
  if (addressing == Addressing::kVirtualHosted && !dotted) {
    const size_t host = base.find("://");
    if (host != std::string::npos) {
      return base.substr(0, host + 3) + object.authority + "." + base.substr(host + 3) + "/" + key;
    }
  }
  return base + "/" + object.authority + "/" + key;
}

}  // namespace segfeed::remote
