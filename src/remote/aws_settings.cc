#include "remote/aws_settings.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <utility>

namespace segfeed::remote {
namespace {

namespace fs = std::filesystem;

using Section = std::map<std::string, std::string>;

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

std::string Trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1);
}

// The file named by `variable`, else ~/.aws/<name>.
fs::path ProfileFile(const char* variable, const char* name) {
  if (std::string given = Env(variable); !given.empty()) return given;
  const std::string home = Env("HOME");
  return home.empty() ? fs::path() : fs::path(home) / ".aws" / name;
}

// The keys of section `wanted` of an INI file; nullopt when the file or
// the section is missing. Nested lines ("s3 =" then "  addressing_style =
// path") count as the section's own keys: the few read here do not clash.
std::optional<Section> ReadSection(const fs::path& file, const std::string& wanted) {
  if (file.empty()) return std::nullopt;
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::optional<Section> found;
  bool inside = false;
  std::string line;
  while (std::getline(in, line)) {
    const std::string text = Trim(line);
    if (text.empty() || text[0] == '#' || text[0] == ';') continue;
    if (text.front() == '[' && text.back() == ']') {
      inside = Trim(text.substr(1, text.size() - 2)) == wanted;
      if (inside && !found) found = Section{};
      continue;
    }
    const size_t equals = text.find('=');
    if (inside && equals != std::string::npos)
      (*found)[Trim(text.substr(0, equals))] = Trim(text.substr(equals + 1));
  }
  return found;
}

std::string Get(const std::optional<Section>& section, const std::string& key) {
  if (!section) return {};
  const auto it = section->find(key);
  return it == section->end() ? std::string() : it->second;
}

std::string FirstOf(std::initializer_list<std::string> values) {
  for (const std::string& value : values) {
    if (!value.empty()) return value;
  }
  return {};
}

}  // namespace

Result<AwsSettings> ResolveAwsSettings(bool anonymous, const std::string& endpoint) {
  AwsSettings settings;
  settings.anonymous = anonymous;
  const std::string profile = FirstOf({Env("AWS_PROFILE"), "default"});
  const fs::path credentials_file = ProfileFile("AWS_SHARED_CREDENTIALS_FILE", "credentials");
  const fs::path config_file = ProfileFile("AWS_CONFIG_FILE", "config");
  const std::optional<Section> credentials = ReadSection(credentials_file, profile);
  const std::optional<Section> config =
      ReadSection(config_file, profile == "default" ? profile : "profile " + profile);
  if (!Env("AWS_PROFILE").empty() && !credentials && !config && !anonymous) {
    return Error{ErrorKind::kIoError, "AWS_PROFILE",
                 "profile '" + profile + "' is in neither " + credentials_file.string() + " nor " +
                     config_file.string()};
  }
  settings.region =
      FirstOf({Env("AWS_REGION"), Env("AWS_DEFAULT_REGION"), Get(config, "region"), "us-east-1"});
  settings.endpoint = FirstOf(
      {endpoint, Env("AWS_ENDPOINT_URL_S3"), Env("AWS_ENDPOINT_URL"), Get(config, "endpoint_url")});
  settings.addressing =
      Get(config, "addressing_style") == "virtual" ||
              (settings.endpoint.empty() && Get(config, "addressing_style") != "path")
          ? Addressing::kVirtualHosted
          : Addressing::kPath;
  settings.ca_bundle =
      FirstOf({Env("AWS_CA_BUNDLE"), Env("SSL_CERT_FILE"), Get(config, "ca_bundle")});
  if (anonymous) return settings;

  if (!Env("AWS_ACCESS_KEY_ID").empty() && !Env("AWS_SECRET_ACCESS_KEY").empty()) {
    settings.access_key_id = Env("AWS_ACCESS_KEY_ID");
    settings.secret_access_key = Env("AWS_SECRET_ACCESS_KEY");
    settings.session_token = Env("AWS_SESSION_TOKEN");
    settings.credentials_source = "the environment";
    return settings;
  }
  for (const auto& [section, file] :
       {std::pair{&credentials, &credentials_file}, std::pair{&config, &config_file}}) {
    if (!Get(*section, "aws_access_key_id").empty() &&
        !Get(*section, "aws_secret_access_key").empty()) {
      settings.access_key_id = Get(*section, "aws_access_key_id");
      settings.secret_access_key = Get(*section, "aws_secret_access_key");
      settings.session_token = Get(*section, "aws_session_token");
      settings.credentials_source = "profile '" + profile + "' of " + file->string();
      return settings;
    }
  }
  return Error{ErrorKind::kIoError, "credentials",
               "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or "
               "AWS_PROFILE with " +
                   credentials_file.string() +
                   "; a public bucket or an HTTP server reads without them "
                   "(no_sign_request, --no-sign-request)"};
}

}  // namespace segfeed::remote
