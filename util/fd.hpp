// Owned file descriptors, pipes and complete writes.
#pragma once

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

}  // namespace mptrain
