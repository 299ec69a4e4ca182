#include "remote/retry_policy.h"

#include <gtest/gtest.h>

namespace segfeed::remote {
namespace {

TEST(RetryPolicyTest, RetriesServerErrorsThrottlingResetsAndBadBodies) {
  EXPECT_EQ(Judge({500, 0, false}), Verdict::kRetry);
  EXPECT_EQ(Judge({503, 0, false}), Verdict::kRetry);  // SlowDown
  EXPECT_EQ(Judge({429, 0, false}), Verdict::kRetry);
  EXPECT_EQ(Judge({0, 56, false}), Verdict::kRetry);    // connection reset
  EXPECT_EQ(Judge({0, 28, false}), Verdict::kRetry);    // timeout
  EXPECT_EQ(Judge({0, 7, false}), Verdict::kRetry);     // refused
  EXPECT_EQ(Judge({206, 18, false}), Verdict::kRetry);  // body cut short
  EXPECT_EQ(Judge({206, 0, true}), Verdict::kRetry);    // wrong bytes
  EXPECT_EQ(Judge({206, 0, false}), Verdict::kDone);
  EXPECT_EQ(Judge({200, 0, false}), Verdict::kDone);
}

TEST(RetryPolicyTest, DoesNotRetryWhatCannotChange) {
  EXPECT_EQ(Judge({403, 0, false}), Verdict::kFinal);
  EXPECT_EQ(Judge({404, 0, false}), Verdict::kFinal);
  EXPECT_EQ(Judge({416, 0, false}), Verdict::kFinal);
  EXPECT_EQ(Judge({0, 6, false}), Verdict::kFinal);   // host does not resolve
  EXPECT_EQ(Judge({0, 3, false}), Verdict::kFinal);   // malformed URL
  EXPECT_EQ(Judge({0, 60, false}), Verdict::kFinal);  // untrusted certificate
  EXPECT_EQ(Judge({0, 77, false}), Verdict::kFinal);  // unusable CA file
  EXPECT_EQ(Judge({0, 35, false}), Verdict::kRetry);  // a handshake cut off
}

TEST(RetryPolicyTest, BackoffGrowsExponentiallyWithinItsCap) {
  const RetryPolicy policy{5, 100, 1000};
  for (uint64_t request = 0; request < 200; ++request) {
    EXPECT_LE(policy.BackoffMs(1, request), 100);
    EXPECT_LE(policy.BackoffMs(2, request), 200);
    EXPECT_LE(policy.BackoffMs(3, request), 400);
    EXPECT_LE(policy.BackoffMs(10, request), 1000);
    EXPECT_GE(policy.BackoffMs(10, request), 0);
  }
  // Jittered: requests retrying at once do not all wait the same.
  EXPECT_NE(policy.BackoffMs(3, 1), policy.BackoffMs(3, 2));
  // And reproducible.
  EXPECT_EQ(policy.BackoffMs(3, 7), policy.BackoffMs(3, 7));
  EXPECT_EQ((RetryPolicy{5, 0, 0}.BackoffMs(4, 1)), 0);
}

TEST(RetryPolicyTest, FailureTextSaysWhatToCheck) {
  EXPECT_EQ(FailureText({403, 0, false}, "s3://b/k", ""),
            "access denied for s3://b/k: check the credentials and the bucket policy (HTTP 403)");
  EXPECT_NE(FailureText({404, 0, false}, "s3://b/k", "").find("check the URL"), std::string::npos);
  EXPECT_EQ(FailureText({0, 56, false}, "s3://b/k", "Connection reset by peer"),
            "s3://b/k: Connection reset by peer");
  const std::string untrusted =
      FailureText({0, 60, false}, "s3://b/k",
                  "SSL certificate problem: unable to get local issuer certificate");
  EXPECT_EQ(untrusted.find("s3://b/k: SSL certificate problem"), 0u);
  EXPECT_NE(untrusted.find("set AWS_CA_BUNDLE or SSL_CERT_FILE"), std::string::npos);
  EXPECT_NE(FailureText({0, 77, false}, "s3://b/k", "error setting certificate file: x.pem")
                .find("check AWS_CA_BUNDLE, SSL_CERT_FILE"),
            std::string::npos);
  EXPECT_NE(FailureText({206, 0, true}, "s3://b/k", "").find("not the bytes the index records"),
            std::string::npos);
}

}  // namespace
}  // namespace segfeed::remote
