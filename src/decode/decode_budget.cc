#include "decode/decode_budget.h"

#include <string>

namespace segfeed::decode {

Error OverDecodeBudget(std::string_view path, std::string_view format, std::string_view dimensions,
                       int64_t needed_bytes, int64_t budget_bytes) {
  return Error{ErrorKind::kTooLarge, std::string(path),
               std::string(format) + " needs " + std::to_string(needed_bytes) +
                   " bytes to decode (" + std::string(dimensions) + "), more than the " +
                   std::to_string(budget_bytes) + " bytes left of the decode budget"};
}

}  // namespace segfeed::decode
