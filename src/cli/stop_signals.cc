#include "cli/stop_signals.h"

#include <atomic>
#include <csignal>

namespace segfeed::cli {
namespace {

// Set by the handler; lock-free, so safe to store from a signal handler.
std::atomic<bool> g_stop_requested{false};

extern "C" void RequestStop(int /*signal*/) { g_stop_requested.store(true); }

}  // namespace

void InstallStopHandlers() {
  struct sigaction action {};
  action.sa_handler = RequestStop;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // no SA_RESTART: a blocking wait sees EINTR sooner
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool StopSignalled() { return g_stop_requested.load(); }

}  // namespace segfeed::cli
