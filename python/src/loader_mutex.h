#pragma once

#include <nanobind/nanobind.h>

#include <chrono>
#include <mutex>

#include "gil.h"
#include "thread_annotations.h"

namespace segfeed::python {

// The lock that serializes a CoreLoader's calls, as a capability clang's
// -Wthread-safety understands (like segfeed::Mutex, src/mutex.h).
// Recursive: Python code may run while it is held (a signal handler, run
// while next() checks for signals) and call the same loader again on the
// same thread.
class CAPABILITY("mutex") LoaderMutex {
 public:
  LoaderMutex() = default;
  LoaderMutex(const LoaderMutex&) = delete;
  LoaderMutex& operator=(const LoaderMutex&) = delete;

  // Takes the lock; to be called with the GIL released. Waits in slices of
  // `slice` and checks for signals between them, with the GIL held for the
  // check, so that Ctrl-C is honoured while another thread holds the lock:
  // throws nanobind::python_error (KeyboardInterrupt), not holding the lock,
  // when a signal handler raised.
  void Lock(std::chrono::milliseconds slice) ACQUIRE() {
    while (!mu_.try_lock_for(slice)) {
      HeldGil gil;
      if (PyErr_CheckSignals() != 0) throw nanobind::python_error();
    }
  }
  void Unlock() RELEASE() { mu_.unlock(); }

 private:
  std::recursive_timed_mutex mu_;
};

// Holds a LoaderMutex for its lifetime. Declare it after the ReleasedGil of
// its scope, so that it is given back before the GIL is taken again.
class SCOPED_CAPABILITY LoaderLock {
 public:
  LoaderLock(LoaderMutex* mu, std::chrono::milliseconds slice) ACQUIRE(mu) : mu_(mu) {
    mu_->Lock(slice);
  }
  ~LoaderLock() RELEASE() { mu_->Unlock(); }
  LoaderLock(const LoaderLock&) = delete;
  LoaderLock& operator=(const LoaderLock&) = delete;

 private:
  LoaderMutex* const mu_;
};

}  // namespace segfeed::python
