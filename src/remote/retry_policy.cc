#include "remote/retry_policy.h"

#include <algorithm>

#include "counter_rng.h"

namespace segfeed::remote {
namespace {

constexpr uint64_t kBackoffSalt = 0xBAC0FF;

// curl's codes for a certificate that is not trusted (60:
// CURLE_PEER_FAILED_VERIFICATION, a wrong host name included) and a CA file
// that cannot be used (77: CURLE_SSL_CACERT_BADFILE): the same on every try.
constexpr int kUntrustedCertificate = 60;
constexpr int kBadCaFile = 77;

}  // namespace

Verdict Judge(const AttemptOutcome& outcome) {
  if (outcome.curl_code != 0 || outcome.http_status == 0) {
    // 3: a malformed URL, 1: an unsupported protocol, 6: a host that does
    // not resolve, and the TLS verdicts: the same on every try. Resets (56),
    // timeouts (28), refused connections (7) and cut bodies (18) may pass.
    const int code = outcome.curl_code;
    return code == 1 || code == 3 || code == 6 || code == kUntrustedCertificate ||
                   code == kBadCaFile
               ? Verdict::kFinal
               : Verdict::kRetry;
  }
  if (outcome.http_status == 200 || outcome.http_status == 206)
    return outcome.body_wrong ? Verdict::kRetry : Verdict::kDone;
  if (outcome.http_status == 429 || outcome.http_status >= 500) return Verdict::kRetry;
  // 408 Request Timeout is the server giving up on a slow client.
  return outcome.http_status == 408 ? Verdict::kRetry : Verdict::kFinal;
}

int64_t RetryPolicy::BackoffMs(int attempt, uint64_t request) const {
  const int doublings = std::clamp(attempt - 1, 0, 30);
  const int64_t ceiling = std::min(max_backoff_ms, base_backoff_ms << doublings);
  if (ceiling <= 0) return 0;
  const CounterRng rng(kBackoffSalt, request, static_cast<uint64_t>(attempt));
  return static_cast<int64_t>(rng.At(0) % static_cast<uint64_t>(ceiling + 1));
}

std::string FailureText(const AttemptOutcome& outcome, const std::string& url,
                        const std::string& curl_error) {
  if (outcome.http_status == 403)
    return "access denied for " + url + ": check the credentials and the bucket policy (HTTP 403)";
  if (outcome.http_status == 404)
    return "no such object " + url + ": check the URL, the endpoint and the bucket (HTTP 404)";
  if (outcome.http_status == 401)
    return "unauthorised for " + url + ": check the credentials (HTTP 401)";
  if (outcome.curl_code == kUntrustedCertificate)
    return url + ": " + curl_error +
           ": the server's TLS certificate is not trusted (set AWS_CA_BUNDLE or SSL_CERT_FILE "
           "to the file of the CA that signed it)";
  if (outcome.curl_code == kBadCaFile)
    return url + ": " + curl_error +
           ": the CA file cannot be used (check AWS_CA_BUNDLE, SSL_CERT_FILE or the profile's "
           "ca_bundle)";
  if (outcome.curl_code != 0) return url + ": " + curl_error;
  if (outcome.body_wrong)
    return url + ": HTTP " + std::to_string(outcome.http_status) +
           " with a body that is not the bytes the index records (short or changed)";
  return url + ": HTTP " + std::to_string(outcome.http_status);
}

}  // namespace segfeed::remote
