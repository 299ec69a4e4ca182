#pragma once

// Where the system keeps its trusted CA certificates, for a libcurl that has
// no such place compiled in. Debian's libcurl has Debian's paths built in;
// the wheel's static libcurl has none (scripts/dev.sh, build_static_libcurl),
// since the wheel runs on distributions that keep the bundle elsewhere, and
// OpenSSL's own default (the OPENSSLDIR of the OpenSSL the wheel carries,
// Debian's /usr/lib/ssl) exists on Debian and Ubuntu only. So segfeed looks
// in the usual places itself, as Go's crypto/x509 does. AWS_CA_BUNDLE and
// SSL_CERT_FILE (aws_settings.h) come first.

#include <span>
#include <string>

namespace segfeed::remote {

// The PEM bundles of the distributions a manylinux wheel runs on: Debian,
// Ubuntu, Arch and Gentoo; Fedora and RHEL; openSUSE; RHEL 7's extracted
// trust store; Alpine and others.
std::span<const char* const> UsualCaBundles();

// The first of `candidates` that is a regular file (a link to one counts),
// else empty: libcurl then falls back to OpenSSL's default.
std::string FirstCaBundle(std::span<const char* const> candidates = UsualCaBundles());

}  // namespace segfeed::remote
