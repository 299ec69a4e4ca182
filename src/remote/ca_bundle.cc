#include "remote/ca_bundle.h"

#include <array>
#include <filesystem>
#include <system_error>

namespace segfeed::remote {

std::span<const char* const> UsualCaBundles() {
  static constexpr std::array<const char*, 6> kBundles = {
      "/etc/ssl/certs/ca-certificates.crt",                 // Debian, Ubuntu, Arch, Gentoo
      "/etc/pki/tls/certs/ca-bundle.crt",                   // Fedora, RHEL
      "/etc/ssl/ca-bundle.pem",                             // openSUSE
      "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // RHEL 7, CentOS 7
      "/etc/pki/tls/cacert.pem",                            // OpenELEC
      "/etc/ssl/cert.pem",                                  // Alpine, macOS
  };
  return kBundles;
}

std::string FirstCaBundle(std::span<const char* const> candidates) {
  for (const char* candidate : candidates) {
    std::error_code error;  // unreadable counts as absent
    if (std::filesystem::is_regular_file(candidate, error)) return candidate;
  }
  return {};
}

}  // namespace segfeed::remote
