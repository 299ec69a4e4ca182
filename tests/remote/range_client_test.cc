#include "remote/range_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mutex.h"
#include "thread_annotations.h"

namespace segfeed::remote {
namespace {

// A keep-alive HTTP/1.1 server on 127.0.0.1 (a free port) answering every
// GET with the asked range of one generated object, each answer held for
// `delay_ms` so that requests pile up. It records the ranges in the order
// they arrived and the most it answered at once.
class RangeServer {
 public:
  explicit RangeServer(int delay_ms) : delay_ms_(delay_ms) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        listen(listener_, 64) != 0 ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
    }
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { Accept(); });
  }
  // Call after the client is gone (its connections closed).
  ~RangeServer() {
    shutdown(listener_, SHUT_RDWR);
    acceptor_.join();
    close(listener_);
    for (std::thread& connection : connections_) connection.join();
  }

  static uint8_t ByteAt(uint64_t i) { return static_cast<uint8_t>(i * 7 % 251); }
  ObjectUrl object() const {
    return ObjectUrl{ObjectUrl::Scheme::kHttp, "127.0.0.1:" + std::to_string(port_), "object"};
  }
  int connections() const { return static_cast<int>(accepted_.load()); }
  int most_at_once() const { return most_at_once_.load(); }
  std::vector<uint64_t> offsets() const {
    MutexLock lock(&mu_);
    return offsets_;
  }

 private:
  void Accept() {
    for (;;) {
      const int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      ++accepted_;
      connections_.emplace_back([this, fd] { Serve(fd); });
    }
  }

  void Serve(int fd) {
    std::string pending;
    char buffer[4096];
    for (;;) {
      const size_t end = pending.find("\r\n\r\n");
      if (end == std::string::npos) {
        const ssize_t got = recv(fd, buffer, sizeof(buffer), 0);
        if (got <= 0) break;
        pending.append(buffer, static_cast<size_t>(got));
        continue;
      }
      const std::string head = pending.substr(0, end);
      pending.erase(0, end + 4);
      const size_t range = head.find("Range: bytes=");
      const uint64_t first = std::stoull(head.substr(range + 13));
      const uint64_t last = std::stoull(head.substr(head.find('-', range + 13) + 1));
      {
        MutexLock lock(&mu_);
        offsets_.push_back(first);
      }
      const int now = ++answering_;
      int most = most_at_once_.load();
      while (now > most && !most_at_once_.compare_exchange_weak(most, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
      std::string response =
          "HTTP/1.1 206 Partial Content\r\nContent-Length: " + std::to_string(last - first + 1) +
          "\r\nContent-Range: bytes " + std::to_string(first) + "-" + std::to_string(last) +
          "/*\r\n\r\n";
      for (uint64_t i = first; i <= last; ++i) response += static_cast<char>(ByteAt(i));
      --answering_;
      if (send(fd, response.data(), response.size(), MSG_NOSIGNAL) !=
          static_cast<ssize_t>(response.size()))
        break;
    }
    close(fd);
  }

  const int delay_ms_;
  int listener_ = -1;
  int port_ = 0;
  std::thread acceptor_;
  std::vector<std::thread> connections_;  // the acceptor's until joined
  std::atomic<int> accepted_{0}, answering_{0}, most_at_once_{0};
  mutable Mutex mu_;
  std::vector<uint64_t> offsets_ GUARDED_BY(mu_);
};

// Starts `count` GETs of `size` bytes at offsets 0, size, 2 size, ... and
// checks every body.
void FetchAll(RangeClient& client, const ObjectUrl& object, int count, uint64_t size) {
  std::vector<std::shared_ptr<Transfer>> transfers;
  for (int i = 0; i < count; ++i) transfers.push_back(client.Start(object, i * size, size));
  for (int i = 0; i < count; ++i) {
    transfers[i]->Wait();
    ASSERT_TRUE(transfers[i]->status().ok()) << transfers[i]->status().error().detail;
    const std::span<const uint8_t> body = transfers[i]->body();
    ASSERT_EQ(body.size(), size);
    for (uint64_t b = 0; b < size; ++b) ASSERT_EQ(body[b], RangeServer::ByteAt(i * size + b));
  }
}

TEST(RangeClientTest, ReusesItsConnectionsAndHandsCurlOnlyABoundedQueue) {
  RangeServer server(/*delay_ms=*/2);
  RangeClientStats stats;
  {
    RangeClientOptions options;
    options.max_connections = 4;
    RangeClient client(options);
    // A read ahead of many small samples, started at once.
    FetchAll(client, server.object(), 300, 1000);
    stats = client.stats();
  }
  EXPECT_EQ(stats.requests, 300);
  EXPECT_EQ(stats.retries, 0);
  EXPECT_EQ(stats.bytes, 300 * 1000);
  EXPECT_LE(stats.connections, 4);  // kept alive, not one per request
  EXPECT_LE(server.connections(), 4);
  EXPECT_LE(server.most_at_once(), 4);
  EXPECT_GE(stats.most_in_curl, 2);
  EXPECT_LE(stats.most_in_curl, 4 * kHandlesPerConnection);
}

TEST(RangeClientTest, OneConnectionAsksInTheOrderStarted) {
  RangeServer server(/*delay_ms=*/1);
  {
    RangeClientOptions options;
    options.max_connections = 1;
    RangeClient client(options);
    FetchAll(client, server.object(), 40, 100);
  }
  std::vector<uint64_t> expected;
  for (uint64_t i = 0; i < 40; ++i) expected.push_back(i * 100);
  EXPECT_EQ(server.offsets(), expected);
  EXPECT_EQ(server.connections(), 1);
}

}  // namespace
}  // namespace segfeed::remote
