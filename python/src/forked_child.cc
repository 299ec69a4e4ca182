#include "forked_child.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>

namespace segfeed::python {
namespace {

std::atomic<bool> loader_created{false};

void ExitWithoutLibraryDestructors(int status, void*) {
  fflush(nullptr);
  _exit(status);
}

void InChild() {
  // on_exit handlers run last-registered first, so this one runs before the
  // handlers the libraries registered when they loaded.
  if (loader_created.load()) on_exit(ExitWithoutLibraryDestructors, nullptr);
}

}  // namespace

void InstallForkedChildExit() { pthread_atfork(nullptr, nullptr, InChild); }

void NoteLoaderCreated() { loader_created.store(true); }

}  // namespace segfeed::python
