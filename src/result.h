#pragma once

#include <cassert>
#include <optional>
#include <utility>
#include <variant>

#include "segfeed/errors.h"

namespace segfeed {

// Success, or the Error that prevented it. Code that can fail on data returns
// this instead of throwing, so a per-sample failure can travel with the sample
// through the pipeline (see docs/design.md, "Errors"): exceptions are for
// the public boundary only.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit on purpose

  bool ok() const { return !error_.has_value(); }
  const Error& error() const {
    assert(!ok());
    return *error_;
  }

 private:
  std::optional<Error> error_;
};

// A value of type T, or the Error that prevented computing it.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit on purpose
  Result(Error error) : state_(std::move(error)) {}  // NOLINT: implicit on purpose

  bool ok() const { return std::holds_alternative<T>(state_); }
  const T& value() const& {
    assert(ok());
    return std::get<T>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(state_));
  }
  const Error& error() const {
    assert(!ok());
    return std::get<Error>(state_);
  }

 private:
  std::variant<T, Error> state_;
};

}  // namespace segfeed
