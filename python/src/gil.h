#pragma once

#include <Python.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace segfeed::python {

// Whether the interpreter is shutting down (safe to ask without the GIL).
inline bool InterpreterFinalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

// The thread that finalizes the interpreter; set when the module loads.
inline unsigned long& MainThreadId() {
  static unsigned long id = 0;
  return id;
}

// A thread other than the main one that wants the GIL back while the
// interpreter shuts down (a daemon thread that was waiting for a batch)
// parks here for good instead. Python up to 3.13 would end it with
// pthread_exit, whose forced unwind cannot pass the catch (...) of the
// binding layer and aborts the whole process; the process is exiting anyway.
inline void ParkIfFinalizing() {
  if (InterpreterFinalizing() && PyThread_get_thread_ident() != MainThreadId()) {
    for (;;) pause();
  }
}

// Threads inside a ReleasedGil scope right now.
inline std::atomic<int>& ThreadsWithoutGil() {
  static std::atomic<int> count{0};
  return count;
}

// nanobind::gil_scoped_release, parking as above when it takes the GIL back.
// Scoped objects declared after it (a lock) are destroyed first, so a
// parked thread holds no lock of ours.
//
// Parking has a window: a thread already waiting for the GIL when shutdown
// begins gets it later only to be ended by pthread_exit. The exit hook
// closes it: it closes every loader, then waits (without the GIL) until no
// thread is left inside a ReleasedGil scope, and a closed loader answers
// without releasing the GIL.
class ReleasedGil {
 public:
  ReleasedGil() : state_(PyEval_SaveThread()) { ++ThreadsWithoutGil(); }
  ~ReleasedGil() {
    ParkIfFinalizing();
    PyEval_RestoreThread(state_);
    --ThreadsWithoutGil();
  }
  ReleasedGil(const ReleasedGil&) = delete;
  ReleasedGil& operator=(const ReleasedGil&) = delete;

 private:
  PyThreadState* state_;
};

// Takes the GIL for a moment inside a ReleasedGil scope (to check for
// signals), parking as above.
class HeldGil {
 public:
  HeldGil() {
    ParkIfFinalizing();
    state_ = PyGILState_Ensure();
  }
  ~HeldGil() { PyGILState_Release(state_); }
  HeldGil(const HeldGil&) = delete;
  HeldGil& operator=(const HeldGil&) = delete;

 private:
  PyGILState_STATE state_;
};

// Called by the exit hook with the GIL held: lets threads that are coming
// back from a segfeed call take the GIL and return to Python, waiting at
// most `timeout` for them.
inline void LetThreadsLeave(std::chrono::milliseconds timeout) {
  if (ThreadsWithoutGil().load() == 0) return;
  PyThreadState* state = PyEval_SaveThread();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (ThreadsWithoutGil().load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  PyEval_RestoreThread(state);
}

}  // namespace segfeed::python
