#include "remote/aws_settings.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace segfeed::remote {
namespace {

// Every variable the settings read, cleared for the test and restored
// after it, with HOME in a temporary folder (no ~/.aws of the machine's).
class AwsSettingsTest : public ::testing::Test {
 protected:
  static constexpr const char* kVariables[] = {"HOME",
                                               "AWS_ACCESS_KEY_ID",
                                               "AWS_SECRET_ACCESS_KEY",
                                               "AWS_SESSION_TOKEN",
                                               "AWS_PROFILE",
                                               "AWS_REGION",
                                               "AWS_DEFAULT_REGION",
                                               "AWS_ENDPOINT_URL",
                                               "AWS_ENDPOINT_URL_S3",
                                               "AWS_CA_BUNDLE",
                                               "SSL_CERT_FILE",
                                               "AWS_CONFIG_FILE",
                                               "AWS_SHARED_CREDENTIALS_FILE"};

  void SetUp() override {
    for (const char* name : kVariables) {
      const char* value = std::getenv(name);
      saved_.push_back(value ? std::optional<std::string>(value) : std::nullopt);
      unsetenv(name);
    }
    setenv("HOME", home_.path().c_str(), 1);
  }
  void TearDown() override {
    for (size_t i = 0; i < std::size(kVariables); ++i) {
      if (saved_[i]) {
        setenv(kVariables[i], saved_[i]->c_str(), 1);
      } else {
        unsetenv(kVariables[i]);
      }
    }
  }
  void WriteAwsFile(const std::string& name, const std::string& text) {
    std::filesystem::create_directories(home_.path() / ".aws");
    std::ofstream(home_.path() / ".aws" / name) << text;
  }

  segfeed::testing::TempDir home_;
  std::vector<std::optional<std::string>> saved_;
};

TEST_F(AwsSettingsTest, TakesKeysRegionAndEndpointFromTheEnvironment) {
  setenv("AWS_ACCESS_KEY_ID", "AKIDENV", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "secret-env", 1);
  setenv("AWS_SESSION_TOKEN", "token-env", 1);
  setenv("AWS_DEFAULT_REGION", "eu-west-1", 1);
  setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000", 1);
  Result<AwsSettings> settings = ResolveAwsSettings(false);
  ASSERT_TRUE(settings.ok()) << settings.error().Message();
  EXPECT_EQ(settings.value().access_key_id, "AKIDENV");
  EXPECT_EQ(settings.value().secret_access_key, "secret-env");
  EXPECT_EQ(settings.value().session_token, "token-env");
  EXPECT_EQ(settings.value().region, "eu-west-1");
  EXPECT_EQ(settings.value().endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(settings.value().addressing, Addressing::kPath);
  EXPECT_EQ(settings.value().credentials_source, "the environment");
  // The S3-specific ones win.
  setenv("AWS_REGION", "ap-south-1", 1);
  setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9001", 1);
  EXPECT_EQ(ResolveAwsSettings(false).value().region, "ap-south-1");
  EXPECT_EQ(ResolveAwsSettings(false).value().endpoint, "http://127.0.0.1:9001");
}

TEST_F(AwsSettingsTest, TheDatasetsEndpointComesFirst) {
  setenv("AWS_ACCESS_KEY_ID", "AKID", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "s", 1);
  setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9001", 1);
  const AwsSettings settings = ResolveAwsSettings(false, "http://127.0.0.1:9100").value();
  EXPECT_EQ(settings.endpoint, "http://127.0.0.1:9100");
  EXPECT_EQ(settings.addressing, Addressing::kPath);
  EXPECT_EQ(ResolveAwsSettings(false, "").value().endpoint, "http://127.0.0.1:9001");
}

TEST_F(AwsSettingsTest, WithoutAnEndpointAddressesAwsVirtualHosted) {
  setenv("AWS_ACCESS_KEY_ID", "AKID", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "s", 1);
  const AwsSettings settings = ResolveAwsSettings(false).value();
  EXPECT_TRUE(settings.endpoint.empty());
  EXPECT_EQ(settings.region, "us-east-1");
  EXPECT_EQ(settings.addressing, Addressing::kVirtualHosted);
}

TEST_F(AwsSettingsTest, ReadsTheProfileFilesUnderHome) {
  WriteAwsFile("credentials",
               "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = d\n"
               "[ci]\naws_access_key_id = AKIDCI\naws_secret_access_key = secret-ci\n");
  WriteAwsFile("config",
               "[default]\nregion = us-west-2\n[profile ci]\nregion = eu-north-1\n"
               "endpoint_url = https://minio.example\ns3 =\n  addressing_style = virtual\n");
  AwsSettings settings = ResolveAwsSettings(false).value();
  EXPECT_EQ(settings.access_key_id, "AKIDDEFAULT");
  EXPECT_EQ(settings.region, "us-west-2");
  setenv("AWS_PROFILE", "ci", 1);
  settings = ResolveAwsSettings(false).value();
  EXPECT_EQ(settings.access_key_id, "AKIDCI");
  EXPECT_EQ(settings.secret_access_key, "secret-ci");
  EXPECT_EQ(settings.region, "eu-north-1");
  EXPECT_EQ(settings.endpoint, "https://minio.example");
  EXPECT_EQ(settings.addressing, Addressing::kVirtualHosted);
  EXPECT_NE(settings.credentials_source.find("profile 'ci'"), std::string::npos);
  EXPECT_EQ(settings.credentials_source.find("secret-ci"), std::string::npos);
  // The environment's keys win over the profile's.
  setenv("AWS_ACCESS_KEY_ID", "AKIDENV", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "e", 1);
  EXPECT_EQ(ResolveAwsSettings(false).value().access_key_id, "AKIDENV");
}

TEST_F(AwsSettingsTest, HonoursTheFilesNamedByTheEnvironment) {
  const std::filesystem::path credentials = home_.path() / "elsewhere-credentials";
  std::ofstream(credentials) << "[default]\naws_access_key_id=AKIDFILE\naws_secret_access_key=f\n";
  setenv("AWS_SHARED_CREDENTIALS_FILE", credentials.c_str(), 1);
  EXPECT_EQ(ResolveAwsSettings(false).value().access_key_id, "AKIDFILE");
}

TEST_F(AwsSettingsTest, KeysInTheConfigFileWork) {
  WriteAwsFile("config", "[default]\naws_access_key_id = AKIDCONFIG\naws_secret_access_key = c\n");
  EXPECT_EQ(ResolveAwsSettings(false).value().access_key_id, "AKIDCONFIG");
}

TEST_F(AwsSettingsTest, NoKeysIsAnErrorThatSaysWhatToDo) {
  Result<AwsSettings> settings = ResolveAwsSettings(false);
  ASSERT_FALSE(settings.ok());
  EXPECT_NE(settings.error().detail.find("AWS_ACCESS_KEY_ID"), std::string::npos);
  EXPECT_NE(settings.error().detail.find("no-sign-request"), std::string::npos);
  setenv("AWS_PROFILE", "missing", 1);
  settings = ResolveAwsSettings(false);
  ASSERT_FALSE(settings.ok());
  EXPECT_NE(settings.error().detail.find("profile 'missing'"), std::string::npos);
}

TEST_F(AwsSettingsTest, AnonymousNeedsNoKeysAndTakesNone) {
  setenv("AWS_ACCESS_KEY_ID", "AKID", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "s", 1);
  const AwsSettings settings = ResolveAwsSettings(true).value();
  EXPECT_TRUE(settings.anonymous);
  EXPECT_TRUE(settings.access_key_id.empty());
  EXPECT_TRUE(settings.secret_access_key.empty());
}

TEST_F(AwsSettingsTest, CaBundleFromAwsCaBundleThenSslCertFile) {
  setenv("SSL_CERT_FILE", "/certs/b.pem", 1);
  EXPECT_EQ(ResolveAwsSettings(true).value().ca_bundle, "/certs/b.pem");
  setenv("AWS_CA_BUNDLE", "/certs/a.pem", 1);
  EXPECT_EQ(ResolveAwsSettings(true).value().ca_bundle, "/certs/a.pem");
}

}  // namespace
}  // namespace segfeed::remote
