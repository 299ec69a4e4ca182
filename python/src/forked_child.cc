#include "forked_child.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>

namespace segfeed::python {
namespace {

std::atomic<bool> loader_created{false};
std::atomic<bool> loader_threads_started{false};
// In a child: whether the parent's loaders had started threads at the fork.
std::atomic<bool> forked_after_loader_threads{false};

void ExitWithoutLibraryDestructors(int status, void*) {
  fflush(nullptr);
  _exit(status);
}

void InChild() {
  // on_exit handlers run last-registered first, so this one runs before the
  // handlers the libraries registered when they loaded.
  if (loader_created.load()) on_exit(ExitWithoutLibraryDestructors, nullptr);
  if (loader_threads_started.load()) forked_after_loader_threads.store(true);
}

}  // namespace

void InstallForkedChildExit() { pthread_atfork(nullptr, nullptr, InChild); }

void NoteLoaderCreated() { loader_created.store(true); }

void NoteLoaderThreadsStarted() { loader_threads_started.store(true); }

bool ForkedAfterLoaderThreads() { return forked_after_loader_threads.load(); }

}  // namespace segfeed::python
