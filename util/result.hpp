// Result-or-error values: the low layer of mptrain's two-layer error model.
//
// Functions that touch the system return `Result<T>` (or `Status`) carrying
// either a value or an `Error` whose message names the path or call that
// failed and strerror(errno). Commands turn an unexpected `Error` into a
// `Failure` exception (util/failure.hpp); main.cpp has the one catch.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace mptrain {

// A failure description meant for a human: what failed, on which path, why.
struct Error {
  std::string message;
  int code = 0;  // the errno behind it, 0 when none
};

// Builds an Error "WHAT PATH: strerror(`err`)"; `err` defaults to errno.
inline Error errno_error(std::string_view what, std::string_view path, int err = errno) {
  std::string m(what);
  if (!path.empty()) {
    m += ' ';
    m += path;
  }
  m += ": ";
  m += std::strerror(err);
  return Error{std::move(m), err};
}

// Either a `T` or an `Error`; check `ok()` before `value()`.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  // True when a value is held.
  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // The held value; throws std::bad_variant_access when `ok()` is false.
  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // The held error; throws std::bad_variant_access when `ok()` is true.
  const Error& error() const { return std::get<1>(state_); }

  // The held value, or `fallback` when an error is held.
  T value_or(T fallback) const& { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Error> state_;
};

// A Result with no value: success or an Error.
using Status = Result<std::monostate>;

// The successful Status.
inline Status ok_status() { return Status(std::monostate{}); }

}  // namespace mptrain
