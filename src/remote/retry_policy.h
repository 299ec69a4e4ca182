#pragma once

// Which failed requests are tried again, and when: exponential backoff with
// full jitter (AWS's recommendation: a random wait in [0, base x 2^n],
// capped), drawn from the counter-based generator so a test can predict it.

#include <cstdint>
#include <string>

namespace segfeed::remote {

// How a request's attempt ended.
struct AttemptOutcome {
  // The HTTP status, 0 when no response came (curl_code says why).
  long http_status = 0;
  // curl's CURLcode as an int (0: the transfer itself completed).
  int curl_code = 0;
  // The body was shorter than asked or not the bytes the index records.
  bool body_wrong = false;
};

enum class Verdict {
  kDone,   // a 200/206 with the right body
  kRetry,  // 5xx, 429, a reset, a timeout, a short or wrong body
  kFinal,  // 403, 404, other 4xx, a bad URL, an untrusted certificate: no retry helps
};

Verdict Judge(const AttemptOutcome& outcome);

struct RetryPolicy {
  // Attempts per request, the first included (>= 1).
  int attempts = 5;
  // The first retry waits up to this; each further one up to twice more.
  int64_t base_backoff_ms = 100;
  int64_t max_backoff_ms = 5000;

  // The wait before attempt `attempt` (1: the first retry) of request
  // `request`, in [0, min(max, base x 2^(attempt-1))].
  int64_t BackoffMs(int attempt, uint64_t request) const;
};

// What to check after a final answer: "access denied for s3://b/k: check
// the credentials and the bucket policy" (403), "no such object ...: check
// the URL" (404), "HTTP 416", for an untrusted certificate curl's text and
// the variables that name a CA file, curl's own text otherwise.
std::string FailureText(const AttemptOutcome& outcome, const std::string& url,
                        const std::string& curl_error);

}  // namespace segfeed::remote
