#pragma once

// Where an object lives: "s3://bucket/key" or "http(s)://host[:port]/path",
// and the HTTP URL a request for it goes to. Object keys are
// percent-encoded here, as SigV4 signs them: curl 7.88 (Debian 12) sends
// the path as given and only encodes it itself from 8.3.

#include <string>
#include <string_view>

#include "result.h"

namespace segfeed::remote {

struct ObjectUrl {
  enum class Scheme { kS3, kHttp, kHttps };
  Scheme scheme = Scheme::kS3;
  // s3: the bucket; http(s): "host[:port]".
  std::string authority;
  // The object's key (s3) or path without its leading '/' (http(s)), not
  // encoded: "voc-shards/index.sfidx".
  std::string key;

  bool is_s3() const { return scheme == Scheme::kS3; }
  // The URL as the user writes it ("s3://bucket/voc/index.sfidx"): what
  // every message names. It never holds a credential.
  std::string ToString() const;
  // The object `name` beside this one's folder: "s3://b/voc/index.sfidx"
  // with "data-000001.tar" gives "s3://b/voc/data-000001.tar".
  ObjectUrl Sibling(std::string_view name) const;
};

// Whether `text` names an object store ("s3://", "http://", "https://").
bool IsObjectUrl(std::string_view text);

// Parses an object URL. Errors (io_error naming the text): another scheme,
// no bucket or host, a user:password@ part (credentials go in the
// environment, never in a URL that messages repeat).
Result<ObjectUrl> ParseObjectUrl(std::string_view text);

// RFC 3986 percent-encoding of an object key as SigV4 wants it: every byte
// but A-Z a-z 0-9 - . _ ~ is %XX (upper-case hex), '/' kept.
std::string PercentEncodeKey(std::string_view key);

// How an S3 bucket is addressed at an endpoint.
enum class Addressing {
  kPath,          // http://127.0.0.1:9000/bucket/key (MinIO, moto, Ceph)
  kVirtualHosted  // https://bucket.s3.eu-west-1.amazonaws.com/key (AWS)
};

// The HTTP URL of `object`. For s3, `endpoint` ("http://127.0.0.1:9000",
// empty for AWS itself: https://s3.<region>.amazonaws.com) and addressing
// place the bucket; a bucket name with a dot is always path-style (TLS
// certificates do not cover it as a host name). http(s) objects ignore both.
std::string RequestUrl(const ObjectUrl& object, std::string_view endpoint, std::string_view region,
                       Addressing addressing);

}  // namespace segfeed::remote
