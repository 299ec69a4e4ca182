#pragma once

// Endpoint, region and credentials as the AWS tools take them, so that a
// dataset in a bucket reads with what `aws s3 ls` already uses:
//
// - keys: AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN),
//   else the profile (AWS_PROFILE, else "default") of the credentials file
//   (AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials), else of the
//   config file (AWS_CONFIG_FILE, else ~/.aws/config; "[profile NAME]");
// - region: AWS_REGION, AWS_DEFAULT_REGION, the profile's region, else
//   us-east-1;
// - endpoint: the dataset's endpoint_url when it names one, else
//   AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's endpoint_url,
//   else AWS itself; a custom endpoint is addressed
//   path-style unless the profile says addressing_style = virtual;
// - TLS: verified always; AWS_CA_BUNDLE, else SSL_CERT_FILE, else the
//   profile's ca_bundle, else the system's certificates.
//
// Anonymous (no_sign_request, as the AWS CLI's --no-sign-request): nothing
// is signed, for public buckets and plain HTTP servers.
//
// The secret key and session token are held here and handed to curl only;
// no message, log line, report or repr prints an AwsSettings.

#include <string>

#include "remote/object_url.h"
#include "result.h"

namespace segfeed::remote {

struct AwsSettings {
  bool anonymous = false;
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  std::string region = "us-east-1";
  std::string endpoint;  // empty: AWS
  Addressing addressing = Addressing::kVirtualHosted;
  std::string ca_bundle;  // empty: the system's
  // Where the keys came from, for messages ("the environment", "profile
  // 'ci' of /home/me/.aws/credentials"): never the keys themselves.
  std::string credentials_source;
};

// Resolves the settings from the environment and the profile files (read
// now). Without keys anywhere and without `anonymous`, an error that says
// where keys were looked for and that --no-sign-request reads a public
// bucket. A profile named by AWS_PROFILE that no file has is an error too.
// `endpoint`, when not empty, comes before every other source of one.
Result<AwsSettings> ResolveAwsSettings(bool anonymous, const std::string& endpoint = {});

}  // namespace segfeed::remote
