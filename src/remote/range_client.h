#pragma once

// Ranged GETs of objects over HTTP(S) with libcurl: one curl multi handle
// driven by one thread of its own, so that many requests run at once over
// kept-alive connections (the multi handle's connection pool). S3 requests
// are signed with curl's SigV4 (CURLOPT_AWS_SIGV4); failed attempts are
// retried by the RetryPolicy. The only file that includes curl.h is
// range_client.cc.
//
// Threads: Start() and stats() from any thread; a Transfer is waited on by
// any thread. Destroying the client fails what is still running
// ("closed") and joins its thread.

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "mutex.h"
#include "remote/aws_settings.h"
#include "remote/object_url.h"
#include "remote/retry_policy.h"
#include "result.h"
#include "thread_annotations.h"

namespace segfeed::remote {

struct RangeClientOptions {
  AwsSettings settings;
  RetryPolicy retry;
  // Time to set up a connection (TCP and TLS), and the longest a transfer
  // may go without a byte before it counts as stalled.
  int64_t connect_timeout_ms = 5000;
  int64_t stall_timeout_ms = 10000;
  // Connections to one host at most (the multi handle's pool).
  int max_connections = 16;
};

// Requests handed to curl at once, per connection allowed: enough that a
// freed connection finds the next request already there; the rest wait in
// the client's own queue, in the order started. Each request in curl holds
// an easy handle and its buffers (about 20 KB): a read ahead of thousands
// of small samples handed over at once cost more memory than their bodies.
inline constexpr int kHandlesPerConnection = 2;

// One GET: its body once done, or why not. Shared by the client (which
// fills it) and whoever waits for it.
class Transfer {
 public:
  // Blocks until the transfer is done (succeeded or given up).
  void Wait() EXCLUDES(mu_);
  bool done() const EXCLUDES(mu_);
  // After Wait(): the body, or the error that names the URL, the status or
  // curl's reason and the attempts.
  const Status& status() const { return status_; }
  std::span<const uint8_t> body() const { return body_; }
  int attempts() const { return attempts_; }
  // After a failed Wait(): whether the last attempt got a body, but a short
  // or wrong one (the BodyCheck refused it).
  bool body_wrong() const { return body_wrong_; }
  // Frees the body (the caller copied what it needed).
  void Release() { std::vector<uint8_t>().swap(body_); }

 private:
  friend class RangeClient;
  void Finish(Status status) EXCLUDES(mu_);

  mutable Mutex mu_;
  CondVar finished_{&mu_};
  bool done_ GUARDED_BY(mu_) = false;
  // Written by the client's thread before done_ is set; read after.
  Status status_;
  std::vector<uint8_t> body_;
  int attempts_ = 0;
  bool body_wrong_ = false;
};

// Counts since the client was made, for bench's report.
struct RangeClientStats {
  int64_t requests = 0;      // attempts sent, retries included
  int64_t retries = 0;       // attempts after a failed one
  int64_t connections = 0;   // connections opened (the rest reused one)
  int64_t bytes = 0;         // body bytes received
  int64_t most_in_curl = 0;  // requests in curl at once, at most
};

class RangeClient {
 public:
  explicit RangeClient(RangeClientOptions options);
  ~RangeClient();
  RangeClient(const RangeClient&) = delete;
  RangeClient& operator=(const RangeClient&) = delete;

  // Whether a body is the one wanted (the index's digest of it): a wrong
  // one is retried like a cut connection.
  using BodyCheck = std::function<bool(std::span<const uint8_t>)>;
  // Starts a GET of bytes [offset, offset + size) of `object`; size 0: the
  // whole object. A body of another length is wrong (retried).
  std::shared_ptr<Transfer> Start(const ObjectUrl& object, uint64_t offset, uint64_t size,
                                  BodyCheck check = {});

  RangeClientStats stats() const;

  // One request's state (range_client.cc); public only for curl's
  // callbacks.
  struct Request;

 private:
  void Run();
  // Hands queued requests to curl while fewer than the bound are there.
  void LaunchQueued();
  void Launch(std::unique_ptr<Request> request);
  void Complete(Request* request, int curl_code);
  // Completes the transfers curl has finished; whether there were any.
  bool CompleteFinished();

  const RangeClientOptions options_;
  std::string ca_file_;    // CURLOPT_CAINFO (ca_bundle.h); empty: libcurl's default
  void* multi_ = nullptr;  // CURLM*, owned; used by the client's thread only
  Mutex mu_;
  std::vector<std::unique_ptr<Request>> submitted_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  // Only the client's thread touches these.
  std::deque<std::unique_ptr<Request>> queued_;  // not yet in curl, in order
  std::vector<std::unique_ptr<Request>> running_;
  std::vector<std::unique_ptr<Request>> waiting_;  // retries, until their time
  std::atomic<uint64_t> next_request_{0};
  std::atomic<int64_t> requests_{0}, retries_{0}, connections_{0}, bytes_{0}, most_in_curl_{0};
  std::thread thread_;
};

}  // namespace segfeed::remote
