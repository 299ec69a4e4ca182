#include "remote/range_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "remote/ca_bundle.h"

namespace segfeed::remote {

using Clock = std::chrono::steady_clock;

// One request and its current attempt.
struct RangeClient::Request {
  std::shared_ptr<Transfer> transfer;
  ObjectUrl object;
  std::string url;  // the HTTP URL, encoded
  uint64_t offset = 0, size = 0;
  BodyCheck check;
  uint64_t number = 0;  // for the backoff's draw
  int attempt = 0;      // attempts sent so far
  Clock::time_point retry_at;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  char curl_error[CURL_ERROR_SIZE] = {};
  std::vector<uint8_t> body;
  AttemptOutcome last;
  std::string last_curl_error;

  ~Request() { Clear(); }
  void Clear() {
    if (easy) curl_easy_cleanup(easy);
    if (headers) curl_slist_free_all(headers);
    easy = nullptr;
    headers = nullptr;
  }
};

namespace {

// Keeps the body, refusing more than a ranged request asked for (a server
// that ignored the range would send the whole object): returning short
// makes curl fail the transfer, which is then retried.
size_t KeepBody(char* data, size_t size, size_t count, void* user) {
  auto* request = static_cast<RangeClient::Request*>(user);
  const size_t bytes = size * count;
  if (request->size != 0 && request->body.size() + bytes > request->size) return 0;
  request->body.insert(request->body.end(), reinterpret_cast<uint8_t*>(data),
                       reinterpret_cast<uint8_t*>(data) + bytes);
  return bytes;
}

// curl_global_init once per process, before the first handle.
void InitCurlOnce() {
  static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  (void)initialised;
}

// Whether libcurl has a CA file or folder of its own compiled in
// (Debian's has /etc/ssl/certs; the wheel's static one has none).
bool CurlHasDefaultCaStore() {
#if LIBCURL_VERSION_NUM >= 0x075400  // CURLINFO_CAINFO and CAPATH: 7.84
  CURL* easy = curl_easy_init();
  char* file = nullptr;
  char* folder = nullptr;
  curl_easy_getinfo(easy, CURLINFO_CAINFO, &file);
  curl_easy_getinfo(easy, CURLINFO_CAPATH, &folder);
  const bool has = file != nullptr || folder != nullptr;
  curl_easy_cleanup(easy);
  return has;
#else
  return true;  // no way to ask: a distribution's libcurl has one
#endif
}

// The CA file every TLS request names: the settings' (AWS_CA_BUNDLE,
// SSL_CERT_FILE, the profile's), else none where libcurl has its own
// default, else the system's bundle found in the usual places (empty if
// none: libcurl then asks OpenSSL for its default).
std::string CaFile(const AwsSettings& settings) {
  if (!settings.ca_bundle.empty()) return settings.ca_bundle;
  if (CurlHasDefaultCaStore()) return {};
  return FirstCaBundle();
}

}  // namespace

void Transfer::Wait() {
  MutexLock lock(&mu_);
  while (!done_) finished_.Wait();
}

bool Transfer::done() const {
  MutexLock lock(&mu_);
  return done_;
}

void Transfer::Finish(Status status) {
  status_ = std::move(status);
  MutexLock lock(&mu_);
  done_ = true;
  finished_.NotifyAll();
}

RangeClient::RangeClient(RangeClientOptions options) : options_(std::move(options)) {
  InitCurlOnce();
  ca_file_ = CaFile(options_.settings);
  multi_ = curl_multi_init();
  curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS,
                    static_cast<long>(options_.max_connections));
  curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(options_.max_connections));
  thread_ = std::thread([this] { Run(); });
}

RangeClient::~RangeClient() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  curl_multi_wakeup(multi_);
  thread_.join();
  curl_multi_cleanup(multi_);
}

std::shared_ptr<Transfer> RangeClient::Start(const ObjectUrl& object, uint64_t offset,
                                             uint64_t size, BodyCheck check) {
  auto request = std::make_unique<Request>();
  request->transfer = std::make_shared<Transfer>();
  request->object = object;
  request->url = RequestUrl(object, options_.settings.endpoint, options_.settings.region,
                            options_.settings.addressing);
  request->offset = offset;
  request->size = size;
  request->check = std::move(check);
  request->number = next_request_++;
  std::shared_ptr<Transfer> transfer = request->transfer;
  {
    MutexLock lock(&mu_);
    if (stopping_) {
      transfer->Finish(Error{ErrorKind::kIoError, object.ToString(), "the reader is closed"});
      return transfer;
    }
    submitted_.push_back(std::move(request));
  }
  curl_multi_wakeup(multi_);
  return transfer;
}

RangeClientStats RangeClient::stats() const {
  return RangeClientStats{requests_.load(), retries_.load(), connections_.load(), bytes_.load(),
                          most_in_curl_.load()};
}

void RangeClient::LaunchQueued() {
  const size_t bound = static_cast<size_t>(std::max(1, options_.max_connections)) *
                       static_cast<size_t>(kHandlesPerConnection);
  while (!queued_.empty() && running_.size() < bound) {
    Launch(std::move(queued_.front()));
    queued_.pop_front();
  }
}

void RangeClient::Launch(std::unique_ptr<Request> request) {
  request->Clear();
  request->body.clear();
  if (request->size != 0) request->body.reserve(request->size);
  CURL* easy = curl_easy_init();
  request->easy = easy;
  curl_easy_setopt(easy, CURLOPT_URL, request->url.c_str());
  curl_easy_setopt(easy, CURLOPT_PRIVATE, request.get());
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &KeepBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, request.get());
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, request->curl_error);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  // Stalled: under one byte a second for the whole window.
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
                   std::max(1L, static_cast<long>(options_.stall_timeout_ms / 1000)));
  const AwsSettings& settings = options_.settings;
  if (!ca_file_.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, ca_file_.c_str());
  if (request->size != 0) {
    const std::string range =
        std::to_string(request->offset) + "-" + std::to_string(request->offset + request->size - 1);
    curl_easy_setopt(easy, CURLOPT_RANGE, range.c_str());  // curl copies it
  }
  if (request->object.is_s3() && !settings.anonymous) {
    // curl 7.88 guesses the region and service from the host name (nonsense
    // for 127.0.0.1 or a bucket's host) unless given in full, and sends no
    // payload hash of its own before 8.0.
    const std::string provider = "aws:amz:" + settings.region + ":s3";
    curl_easy_setopt(easy, CURLOPT_AWS_SIGV4, provider.c_str());
    curl_easy_setopt(easy, CURLOPT_USERNAME, settings.access_key_id.c_str());
    curl_easy_setopt(easy, CURLOPT_PASSWORD, settings.secret_access_key.c_str());
    request->headers =
        curl_slist_append(request->headers, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    if (!settings.session_token.empty()) {
      request->headers = curl_slist_append(
          request->headers, ("x-amz-security-token: " + settings.session_token).c_str());
    }
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, request->headers);
  }
  ++request->attempt;
  ++requests_;
  if (request->attempt > 1) ++retries_;
  curl_multi_add_handle(multi_, easy);
  running_.push_back(std::move(request));
  most_in_curl_ = std::max<int64_t>(most_in_curl_.load(), static_cast<int64_t>(running_.size()));
}

void RangeClient::Complete(Request* request, int curl_code) {
  auto owned = std::find_if(running_.begin(), running_.end(),
                            [request](const auto& r) { return r.get() == request; });
  std::unique_ptr<Request> done = std::move(*owned);
  running_.erase(owned);
  AttemptOutcome outcome;
  outcome.curl_code = curl_code;
  curl_easy_getinfo(done->easy, CURLINFO_RESPONSE_CODE, &outcome.http_status);
  long connects = 0;
  curl_easy_getinfo(done->easy, CURLINFO_NUM_CONNECTS, &connects);
  connections_ += connects;
  bytes_ += static_cast<int64_t>(done->body.size());
  if (curl_code == 0 && (outcome.http_status == 200 || outcome.http_status == 206)) {
    // A 200 to a ranged request is the whole object: wrong unless asked.
    const bool whole = outcome.http_status == 200 && done->size != 0 && done->offset != 0;
    outcome.body_wrong = whole || (done->size != 0 && done->body.size() != done->size) ||
                         (done->check && !done->check(done->body));
  }
  const std::string curl_text = done->curl_error[0] != '\0'
                                    ? std::string(done->curl_error)
                                    : curl_easy_strerror(static_cast<CURLcode>(curl_code));
  curl_multi_remove_handle(multi_, done->easy);
  done->Clear();
  const Verdict verdict = Judge(outcome);
  if (verdict == Verdict::kDone) {
    done->transfer->body_ = std::move(done->body);
    done->transfer->attempts_ = done->attempt;
    done->transfer->Finish({});
    return;
  }
  if (verdict == Verdict::kRetry && done->attempt < options_.retry.attempts) {
    done->retry_at = Clock::now() + std::chrono::milliseconds(
                                        options_.retry.BackoffMs(done->attempt, done->number));
    waiting_.push_back(std::move(done));
    return;
  }
  std::string detail = FailureText(outcome, done->object.ToString(), curl_text);
  if (verdict == Verdict::kRetry || done->attempt > 1)
    detail += " (after " + std::to_string(done->attempt) + " attempts)";
  done->transfer->attempts_ = done->attempt;
  done->transfer->body_wrong_ = outcome.body_wrong;
  done->transfer->Finish(Error{ErrorKind::kIoError, done->object.ToString(), std::move(detail)});
}

bool RangeClient::CompleteFinished() {
  bool any = false;
  int messages = 0;
  while (CURLMsg* message = curl_multi_info_read(multi_, &messages)) {
    if (message->msg != CURLMSG_DONE) continue;
    Request* request = nullptr;
    curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &request);
    Complete(request, static_cast<int>(message->data.result));
    any = true;
  }
  return any;
}

void RangeClient::Run() {
  for (;;) {
    std::vector<std::unique_ptr<Request>> fresh;
    bool stopping = false;
    {
      MutexLock lock(&mu_);
      fresh.swap(submitted_);
      stopping = stopping_;
    }
    if (stopping) break;
    for (auto& request : fresh) queued_.push_back(std::move(request));
    const Clock::time_point now = Clock::now();
    Clock::time_point next_retry = now + std::chrono::milliseconds(200);
    for (size_t i = 0; i < waiting_.size();) {
      if (waiting_[i]->retry_at <= now) {
        // A retry goes first: it was started before whatever is queued.
        queued_.push_front(std::move(waiting_[i]));
        waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        next_retry = std::min(next_retry, waiting_[i]->retry_at);
        ++i;
      }
    }
    LaunchQueued();
    int still_running = 0;
    curl_multi_perform(multi_, &still_running);
    // A completion frees a connection: the next queued request takes it
    // now, not after the poll.
    while (CompleteFinished()) {
      LaunchQueued();
      curl_multi_perform(multi_, &still_running);
    }
    const auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(next_retry - now);
    curl_multi_poll(multi_, nullptr, 0, static_cast<int>(std::max<int64_t>(1, wait_ms.count())),
                    nullptr);
  }
  // Closing: whatever is left fails, so that no waiter hangs.
  std::vector<std::unique_ptr<Request>> left;
  {
    MutexLock lock(&mu_);
    left.swap(submitted_);
  }
  for (auto& request : running_) {
    curl_multi_remove_handle(multi_, request->easy);
    left.push_back(std::move(request));
  }
  for (auto& request : queued_) left.push_back(std::move(request));
  for (auto& request : waiting_) left.push_back(std::move(request));
  for (auto& request : left)
    request->transfer->Finish(
        Error{ErrorKind::kIoError, request->object.ToString(), "the reader is closed"});
}

}  // namespace segfeed::remote
