// The command layer of mptrain's error model: one exception type carrying a
// message and the process exit code. Only main.cpp catches it; it prints
// "mptrain: error: MESSAGE" and exits with `exit_code()`.
#pragma once

#include <fmt/format.h>
#include <sys/resource.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <utility>

#include "util/result.hpp"

namespace mptrain {

// Exit codes shared by every command (SPEC "Exit codes").
namespace exit_code {
inline constexpr int success = 0;
inline constexpr int runtime_failure = 1;  // bad data, I/O, a worker failed to start
inline constexpr int usage_error = 2;      // bad or conflicting options
inline constexpr int doctor_found = 3;     // doctor found what --fail-on names
// The shell's exit code of a process a signal ended: 128 + the signal.
constexpr int of_signal(int signal) { return 128 + signal; }
// The signal behind shell exit code `code`, 0 when it is an ordinary exit code.
constexpr int signal_of(int code) { return code > 128 && code <= 128 + 64 ? code - 128 : 0; }
}  // namespace exit_code

// A command-level failure: what went wrong and what to do, plus the exit code.
class Failure : public std::runtime_error {
 public:
  Failure(int code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
  // The process exit code this failure maps to.
  int exit_code() const { return code_; }

 private:
  int code_;
};

// Throws a Failure with exit code 2 and a formatted message.
template <class... Args>
[[noreturn]] void usage_failure(fmt::format_string<Args...> format, Args&&... args) {
  throw Failure(exit_code::usage_error, fmt::format(format, std::forward<Args>(args)...));
}

// Throws a Failure with exit code 1 and a formatted message.
template <class... Args>
[[noreturn]] void runtime_failure(fmt::format_string<Args...> format, Args&&... args) {
  throw Failure(exit_code::runtime_failure, fmt::format(format, std::forward<Args>(args)...));
}

// Which limit on open files an EMFILE or ENFILE (`code`) reached: "the
// limit is 1024" (this process's, RLIMIT_NOFILE) or "the system's limit is
// reached" (ENFILE, or a limit that cannot be read).
inline std::string open_files_limit(int code) {
  rlimit limit{};
  if (code == ENFILE || ::getrlimit(RLIMIT_NOFILE, &limit) != 0) return "the system's limit is reached";
  return fmt::format("the limit is {}", limit.rlim_cur);
}

// `error`'s message, and when it ran out of file descriptors (EMFILE,
// ENFILE) and does not already say what to do about it, which limit and how
// to raise it.
inline std::string with_limit_advice(const Error& error) {
  if ((error.code != EMFILE && error.code != ENFILE) || error.message.find("ulimit") != std::string::npos)
    return error.message;
  return fmt::format("{} ({}); raise the limit (ulimit -n)", error.message, open_files_limit(error.code));
}

// Returns the value of `result`, or throws a Failure with `code` and its
// message (with what to do where a limit on open files caused it).
template <class T>
T value_or_fail(Result<T> result, int code = exit_code::runtime_failure) {
  if (!result.ok()) throw Failure(code, with_limit_advice(result.error()));
  return std::move(result).value();
}

}  // namespace mptrain
