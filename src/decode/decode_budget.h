#pragma once

#include <cstdint>
#include <string_view>

#include "segfeed/errors.h"

namespace segfeed::decode {

// The too_large error of a file whose header says that decoding it needs
// `needed_bytes`, more than the `budget_bytes` left of its thread's decode
// budget, refused before anything is allocated: "<format> needs N bytes to
// decode (<dimensions>), more than the B bytes left of the decode budget".
// Every decoder that checks the budget words its refusal through this, so
// the message is the same for photos and masks, PNG and GIF.
Error OverDecodeBudget(std::string_view path, std::string_view format, std::string_view dimensions,
                       int64_t needed_bytes, int64_t budget_bytes);

}  // namespace segfeed::decode
