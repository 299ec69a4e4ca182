#include "remote/loopback_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace segfeed::testing {
namespace {

// The path of a request target, percent-decoded, without its query.
std::string DecodedPath(const std::string& target) {
  std::string path;
  const std::string raw = target.substr(0, target.find('?'));
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '%' && i + 2 < raw.size()) {
      path += static_cast<char>(std::strtol(raw.substr(i + 1, 2).c_str(), nullptr, 16));
      i += 2;
    } else {
      path += raw[i];
    }
  }
  return path.empty() || path[0] != '/' ? path : path.substr(1);
}

std::string Reply(int code, const std::string& reason, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(code) + " " + reason +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// The value of header `name` (lower case) in a request's header block.
std::string Header(const std::string& head, const std::string& name) {
  std::istringstream lines(head);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (key != name) continue;
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ')) value.erase(0, 1);
    while (!value.empty() && (value.back() == '\r' || value.back() == ' ')) value.pop_back();
    return value;
  }
  return "";
}

bool SendAll(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

LoopbackHttpServer::LoopbackHttpServer(std::filesystem::path folder) : folder_(std::move(folder)) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;  // a free port, chosen by the kernel
  socklen_t length = sizeof address;
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(listener_, 64) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw std::runtime_error("loopback server: cannot listen on 127.0.0.1");
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { Run(); });
}

LoopbackHttpServer::~LoopbackHttpServer() {
  stopping_ = true;
  thread_.join();
  ::close(listener_);
}

std::string LoopbackHttpServer::url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/";
}

int64_t LoopbackHttpServer::requests() const { return requests_; }

int64_t LoopbackHttpServer::requests_of(const std::string& path) const {
  MutexLock lock(&mu_);
  const auto it = requests_of_.find(path);
  return it == requests_of_.end() ? 0 : it->second;
}

int64_t LoopbackHttpServer::connections() const { return connections_; }

void LoopbackHttpServer::DenyByte(const std::string& path, uint64_t offset) {
  MutexLock lock(&mu_);
  denied_[path].insert(offset);
}

void LoopbackHttpServer::ServeInstead(const std::string& path, std::vector<std::string> bodies) {
  MutexLock lock(&mu_);
  for (std::string& body : bodies) instead_[path].push_back(std::move(body));
}

void LoopbackHttpServer::Run() {
  std::vector<Connection> open;
  while (!stopping_) {
    std::vector<pollfd> watched{{listener_, POLLIN, 0}};
    for (const Connection& connection : open) watched.push_back({connection.fd, POLLIN, 0});
    // A short timeout: the destructor's flag is seen within it.
    if (::poll(watched.data(), watched.size(), 20) <= 0) continue;
    if (watched[0].revents & POLLIN) {
      const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        open.push_back({fd, {}});
        ++connections_;
      }
    }
    for (size_t i = 1; i < watched.size(); ++i) {
      if (watched[i].revents == 0) continue;
      Connection& connection = open[i - 1];
      char buffer[16384];
      const ssize_t n = ::recv(connection.fd, buffer, sizeof buffer, 0);
      bool keep = n > 0;
      if (keep) {
        connection.received.append(buffer, static_cast<size_t>(n));
        keep = Answer(&connection);
      }
      if (!keep) {
        ::close(connection.fd);
        connection.fd = -1;
      }
    }
    std::erase_if(open, [](const Connection& connection) { return connection.fd < 0; });
  }
  for (const Connection& connection : open) ::close(connection.fd);
}

bool LoopbackHttpServer::Answer(Connection* connection) {
  for (;;) {
    const size_t end = connection->received.find("\r\n\r\n");
    if (end == std::string::npos) return true;
    const std::string head = connection->received.substr(0, end + 2);
    connection->received.erase(0, end + 4);
    std::istringstream first_line(head.substr(0, head.find("\r\n")));
    std::string method, target;
    first_line >> method >> target;
    ++requests_;
    const std::string response = method != "GET" ? Reply(405, "Method Not Allowed", "")
                                                 : Response(target, Header(head, "range"));
    if (!SendAll(connection->fd, response)) return false;
    if (Header(head, "connection") == "close") return false;
  }
}

std::string LoopbackHttpServer::Response(const std::string& target, const std::string& range) {
  const std::string path = DecodedPath(target);
  std::string bytes;
  bool replaced = false;
  std::set<uint64_t> denied;
  {
    MutexLock lock(&mu_);
    ++requests_of_[path];
    denied = denied_[path];
    auto instead = instead_.find(path);
    if (instead != instead_.end() && !instead->second.empty()) {
      bytes = std::move(instead->second.front());
      instead->second.pop_front();
      replaced = true;
    }
  }
  if (path.find("..") != std::string::npos) return Reply(403, "Forbidden", "");
  if (!replaced) {
    std::ifstream file(folder_ / path, std::ios::binary);
    if (!file || std::filesystem::is_directory(folder_ / path))
      return Reply(404, "Not Found", "no such file");
    bytes.assign(std::istreambuf_iterator<char>(file), {});
  }
  if (range.empty()) return Reply(200, "OK", bytes);
  unsigned long long first = 0, last = 0;
  if (std::sscanf(range.c_str(), "bytes=%llu-%llu", &first, &last) != 2 || first > last)
    return Reply(400, "Bad Request", "only bytes=a-b ranges");
  for (const uint64_t offset : denied) {
    if (offset >= first && offset <= last) return Reply(403, "Forbidden", "denied");
  }
  if (first >= bytes.size()) return Reply(416, "Range Not Satisfiable", "");
  last = std::min<unsigned long long>(last, bytes.size() - 1);
  const std::string body = bytes.substr(first, last - first + 1);
  return "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + std::to_string(first) + "-" +
         std::to_string(last) + "/" + std::to_string(bytes.size()) +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace segfeed::testing
