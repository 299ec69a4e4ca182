#pragma once

// main() for the stage micro-benchmarks: OpenCV runs single-threaded, so the
// numbers are per core, as the loader runs each stage on one worker thread.

#include <benchmark/benchmark.h>

#include <opencv2/core.hpp>

#define SEGFEED_BENCHMARK_MAIN()                                        \
  int main(int argc, char** argv) {                                     \
    cv::setNumThreads(1);                                               \
    ::benchmark::Initialize(&argc, argv);                               \
    if (::benchmark::ReportUnrecognizedArguments(argc, argv)) return 1; \
    ::benchmark::AddCustomContext("opencv_threads", "1");               \
    ::benchmark::RunSpecifiedBenchmarks();                              \
    ::benchmark::Shutdown();                                            \
    return 0;                                                           \
  }
