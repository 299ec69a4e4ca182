#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "decode/format_sniffer.h"
#include "result.h"
#include "source/sample_source.h"

namespace segfeed::decode {

// A HeadCheck that accepts the `expected` format, and `also` when given (a
// photo may be JPEG or PNG): anything else is unsupported_format, naming
// what the first bytes look like. It lives with the decoders, not the
// sources, because telling formats apart is the decoders' knowledge: a
// source only runs the check it is given.
class ExpectedFormats final : public source::HeadCheck {
 public:
  ExpectedFormats(SniffedFormat expected, std::optional<SniffedFormat> also = std::nullopt)
      : expected_(expected), also_(also) {}
  Status Check(std::span<const uint8_t> head, const std::string& name) const override;

 private:
  SniffedFormat expected_;
  std::optional<SniffedFormat> also_;
};

}  // namespace segfeed::decode
