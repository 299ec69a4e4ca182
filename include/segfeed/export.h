#pragma once

// SEGFEED_EXPORT marks what libsegfeed exports: the public classes and
// functions declared in include/segfeed/. The library is built with
// -fvisibility=hidden and -fvisibility-inlines-hidden, so everything else
// (the rooms under src/ and their namespaces, the template instantiations of
// oneTBB and OpenCV they make) stays inside it; tests/abi checks the list.
// A user of the headers defines nothing (the model is LevelDB's
// include/leveldb/export.h).
#if defined(__GNUC__) || defined(__clang__)
#define SEGFEED_EXPORT __attribute__((visibility("default")))
#else
#define SEGFEED_EXPORT
#endif
