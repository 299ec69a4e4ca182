#pragma once

// A small HTTP server for the tests of the object-storage source: it serves
// the files of one folder on 127.0.0.1 at a free port, answers GET with
// `Range: bytes=a-b` with 206 and the range (200 and the whole file
// without one), keeps connections alive, and counts the requests. A test
// can make it answer 403 for a range, or serve other bytes in place of a
// file for the next few requests (a corrupt or cut body). One thread of
// its own, poll(2) over the connections; no dependency beyond POSIX.

#include <atomic>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mutex.h"
#include "thread_annotations.h"

namespace segfeed::testing {

class LoopbackHttpServer {
 public:
  // Serves `folder`; listening once the constructor returns.
  explicit LoopbackHttpServer(std::filesystem::path folder);
  // Stops: closes every connection and joins the thread.
  ~LoopbackHttpServer();
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  // "http://127.0.0.1:<port>/": a file's URL is this and its path in the
  // folder.
  std::string url() const;
  // Requests answered (of any path), and of one file ("index.sfidx").
  int64_t requests() const;
  int64_t requests_of(const std::string& path) const;
  // Connections accepted.
  int64_t connections() const;

  // A request of `path` whose range holds byte `offset` gets 403.
  void DenyByte(const std::string& path, uint64_t offset);
  // The next requests of `path`, one each, get these bodies in place of
  // the file's bytes (the range is taken from them as from the file);
  // then the file again.
  void ServeInstead(const std::string& path, std::vector<std::string> bodies);

 private:
  struct Connection {
    int fd = -1;
    std::string received;
  };
  void Run();
  // Answers every whole request in `connection`'s buffer; false when the
  // connection is to be closed.
  bool Answer(Connection* connection);
  std::string Response(const std::string& target, const std::string& range);

  const std::filesystem::path folder_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> requests_{0}, connections_{0};
  mutable Mutex mu_;
  std::map<std::string, int64_t> requests_of_ GUARDED_BY(mu_);
  std::map<std::string, std::set<uint64_t>> denied_ GUARDED_BY(mu_);
  std::map<std::string, std::deque<std::string>> instead_ GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace segfeed::testing
