// Owned file descriptors, pipes, complete writes, and the process's limit
// on open files.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "util/result.hpp"

namespace mptrain {

// Owns one file descriptor (-1: none) and closes it on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  // The descriptor, still owned (-1 when none).
  int get() const { return fd_; }
  // True when a descriptor is held.
  bool valid() const { return fd_ >= 0; }
  // Closes the held descriptor (if any) and takes `fd` instead.
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// Both ends of a pipe.
struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

// Which pipe ends are non-blocking (both are always close-on-exec).
enum class PipeMode { blocking, nonblocking_read, nonblocking_both };

// A new close-on-exec pipe; an Error with errno otherwise.
Result<Pipe> make_pipe(PipeMode mode);

// Writes all of `data` to `fd`, retrying on EINTR and short writes; an Error
// naming `what` and errno otherwise.
Status write_all(int fd, std::string_view data, std::string_view what);

// Makes descriptors 0, 1 and 2 refer to something, so no file opened later
// takes their number: a closed one is opened read-only on /dev/null, which
// keeps a write to a closed stdout failing (EBADF) as it would have.
void reserve_standard_descriptors();

// Raises this process's soft limit on open files (RLIMIT_NOFILE) to its hard
// limit and returns the soft limit now in force (unchanged where the raise
// fails; RLIM_INFINITY when unreadable); the soft limit from before the first
// raise is remembered.
std::uint64_t raise_open_file_limit();
// The soft limit on open files from before raise_open_file_limit first raised
// it, which children get back before exec; nullopt when it was never raised.
std::optional<std::uint64_t> soft_open_file_limit_before_raise();

}  // namespace mptrain
