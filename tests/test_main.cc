// main() of the test executables.
#include <gtest/gtest.h>

#include <opencv2/core/utility.hpp>

int main(int argc, char** argv) {
  // The Loader calls OpenCV from its own workers with OpenCV's threading off
  // (process-wide, see segfeed/loader.h). Tests that call the stages
  // directly run them the same way: they test what ships, and
  // ThreadSanitizer is not confused by OpenCV's uninstrumented thread pool.
  cv::setNumThreads(1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
