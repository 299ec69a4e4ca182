#pragma once

#include <Python.h>
#include <unistd.h>

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

// nanobind::gil_scoped_release, parking as above when it takes the GIL back.
// Scoped objects declared after it (a lock) are destroyed first, so a
// parked thread holds no lock of ours.
class ReleasedGil {
 public:
  ReleasedGil() : state_(PyEval_SaveThread()) {}
  ~ReleasedGil() {
    ParkIfFinalizing();
    PyEval_RestoreThread(state_);
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

}  // namespace segfeed::python
