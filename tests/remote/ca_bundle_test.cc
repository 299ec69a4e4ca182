#include "remote/ca_bundle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <string>

namespace segfeed::remote {
namespace {

namespace fs = std::filesystem;

class CaBundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::path(::testing::TempDir()) /
              ("ca_bundle_test_" +
               std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string Write(const std::string& name) {
    const fs::path path = folder_ / name;
    std::ofstream(path) << "-----BEGIN CERTIFICATE-----\n";
    return path.string();
  }

  fs::path folder_;
};

TEST_F(CaBundleTest, TakesTheFirstBundleThatExists) {
  const std::string missing = (folder_ / "missing.crt").string();
  const std::string second = Write("second.crt");
  const std::string third = Write("third.pem");
  const std::array<const char*, 3> candidates = {missing.c_str(), second.c_str(), third.c_str()};
  EXPECT_EQ(FirstCaBundle(candidates), second);
}

TEST_F(CaBundleTest, SkipsFoldersAndFollowsLinks) {
  const std::string folder = (folder_ / "certs").string();
  fs::create_directories(folder);
  const std::string target = Write("target.crt");
  const std::string link = (folder_ / "link.crt").string();
  fs::create_symlink(target, link);
  const std::array<const char*, 2> candidates = {folder.c_str(), link.c_str()};
  EXPECT_EQ(FirstCaBundle(candidates), link);
}

TEST_F(CaBundleTest, EmptyWhenNoneExists) {
  const std::string missing = (folder_ / "missing.crt").string();
  const std::string dangling = (folder_ / "dangling.crt").string();
  fs::create_symlink(folder_ / "nowhere.crt", dangling);
  const std::array<const char*, 2> candidates = {missing.c_str(), dangling.c_str()};
  EXPECT_EQ(FirstCaBundle(candidates), "");
}

TEST(UsualCaBundlesTest, DebiansComesFirstThenTheOtherDistributions) {
  const auto usual = UsualCaBundles();
  ASSERT_GE(usual.size(), 3u);
  // Where Debian's libcurl looks (the development build), so both builds
  // agree on Debian and Ubuntu.
  EXPECT_STREQ(usual[0], "/etc/ssl/certs/ca-certificates.crt");
  EXPECT_NE(std::find_if(usual.begin(), usual.end(),
                         [](const char* path) {
                           return std::string(path) == "/etc/pki/tls/certs/ca-bundle.crt";
                         }),
            usual.end());  // Fedora and RHEL
}

}  // namespace
}  // namespace segfeed::remote
