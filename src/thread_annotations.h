#pragma once

// Clang's thread-safety annotations behind macros, as LevelDB does
// (port/thread_annotations.h): with clang and -Wthread-safety the compiler
// checks that a member marked GUARDED_BY(mu_) is only touched with mu_ held
// and that a function marked REQUIRES(mu_) is only called so. Elsewhere
// (GCC) they expand to nothing. The mutex must be a type clang knows as a
// capability: segfeed::Mutex (mutex.h), not std::mutex.
// The `thread-safety` CMake preset builds the tree with clang and
// -Wthread-safety -Werror.

#if defined(__clang__)
#define SEGFEED_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define SEGFEED_THREAD_ANNOTATION(x)
#endif

// A type that is a lock ("mutex").
#define CAPABILITY(name) SEGFEED_THREAD_ANNOTATION(capability(name))
// A RAII type that holds a lock for its lifetime.
#define SCOPED_CAPABILITY SEGFEED_THREAD_ANNOTATION(scoped_lockable)
// A data member read and written only with the lock held.
#define GUARDED_BY(lock) SEGFEED_THREAD_ANNOTATION(guarded_by(lock))
// A pointer member whose pointee is touched only with the lock held.
#define PT_GUARDED_BY(lock) SEGFEED_THREAD_ANNOTATION(pt_guarded_by(lock))
// A function the caller must call with the lock(s) held.
#define REQUIRES(...) SEGFEED_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
// A function the caller must call without the lock(s) held (it takes them).
#define EXCLUDES(...) SEGFEED_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
// A function that takes / gives back the lock(s).
#define ACQUIRE(...) SEGFEED_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) SEGFEED_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
// A function that returns a reference to the lock.
#define RETURN_CAPABILITY(lock) SEGFEED_THREAD_ANNOTATION(lock_returned(lock))
// Opts one function out of the analysis; say why next to it.
#define NO_THREAD_SAFETY_ANALYSIS SEGFEED_THREAD_ANNOTATION(no_thread_safety_analysis)
