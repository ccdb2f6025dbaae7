// Result<T>: a value or an error message. The layout library reports every
// failure (malformed notation, an inadmissible composition, int64 overflow)
// through it; no exception crosses the library's API.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace argus::layout {

// Why an operation failed, in words meant for a person ("composition ... is
// not admissible: at mode 0 of A (size 6), stride 4 neither divides nor is
// divisible by 6").
struct Error {
  std::string message;
};

template <class T> class [[nodiscard]] Result {
public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Preconditions: ok() for value(), !ok() for error().
  const T &value() const & { return std::get<0>(state_); }
  T &value() & { return std::get<0>(state_); }
  T &&value() && { return std::get<0>(std::move(state_)); }
  const T &operator*() const & { return value(); }
  T &operator*() & { return value(); }
  T &&operator*() && { return std::move(*this).value(); }
  const T *operator->() const { return &value(); }
  T *operator->() { return &value(); }

  const Error &error() const { return std::get<1>(state_); }
  // The error message, or "" when ok().
  std::string message() const { return ok() ? std::string() : error().message; }

  // The value, or `fallback` on error.
  T value_or(T fallback) const & { return ok() ? value() : std::move(fallback); }

private:
  std::variant<T, Error> state_;
};

} // namespace argus::layout
