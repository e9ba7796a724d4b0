#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "util/fd.hpp"

namespace mptrain {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

namespace {

Status set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return errno_error("fcntl", "O_NONBLOCK");
  return ok_status();
}

}  // namespace

Result<Pipe> make_pipe(PipeMode mode) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) < 0) return errno_error("cannot create a pipe", "");
  Pipe pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
  if (mode != PipeMode::blocking) {
    if (auto status = set_nonblocking(pipe.read.get()); !status.ok()) return status.error();
  }
  if (mode == PipeMode::nonblocking_both) {
    if (auto status = set_nonblocking(pipe.write.get()); !status.ok()) return status.error();
  }
  return pipe;
}

Status write_all(int fd, std::string_view data, std::string_view what) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot write", what);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return ok_status();
}

namespace {

// The soft limit before the first raise: RLIM_INFINITY until raise_open_file_limit changed it.
std::atomic<rlim_t> soft_limit_before_raise{RLIM_INFINITY};

}  // namespace

std::uint64_t raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return RLIM_INFINITY;
  if (limit.rlim_cur >= limit.rlim_max) return limit.rlim_cur;
  const rlim_t before = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) return before;
  rlim_t unset = RLIM_INFINITY;
  soft_limit_before_raise.compare_exchange_strong(unset, before);  // only the first raise is remembered
  return limit.rlim_cur;
}

std::optional<std::uint64_t> soft_open_file_limit_before_raise() {
  const rlim_t before = soft_limit_before_raise.load();
  if (before == RLIM_INFINITY) return std::nullopt;
  return before;
}

void reserve_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    const int opened = ::open("/dev/null", O_RDONLY);  // the lowest free number: `fd`
    if (opened >= 0 && opened != fd) ::close(opened);
  }
}

}  // namespace mptrain
