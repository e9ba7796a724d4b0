#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "util/file_lock.hpp"

namespace mptrain {

namespace {

// FNV-1a, 64 bits: stable across runs and builds, unlike std::hash.
std::uint64_t name_hash(std::string_view name) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// The pid written in the lock file `fd`, or 0 when it holds none.
long holder_pid(int fd) {
  char text[32] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return 0;
  char* end = nullptr;
  const long pid = std::strtol(text, &end, 10);
  return pid > 0 && (*end == '\n' || *end == '\0') ? pid : 0;
}

}  // namespace

bool is_lock_content(std::string_view content) {
  if (content.empty()) return true;
  std::size_t digits = 0;
  while (digits < content.size() && content[digits] >= '0' && content[digits] <= '9') ++digits;
  return digits > 0 && digits <= 10 && (content.size() == digits || content.substr(digits) == "\n");
}

bool holds_lock_content(int fd) {
  char text[16];
  const ssize_t n = ::pread(fd, text, sizeof text, 0);
  return n >= 0 && is_lock_content(std::string_view(text, static_cast<std::size_t>(n)));
}

namespace {

// Writes this process's pid into the lock file `fd` (best effort: a lock
// file another user created may be read-only to us; the lock still holds).
void record_holder(int fd) {
  const std::string pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
}

// True when `fd` is still the file at `path`: the holder before us may have removed it while we waited to lock.
bool still_linked(int fd, const std::filesystem::path& path) {
  struct stat held {};
  struct stat named {};
  if (::fstat(fd, &held) != 0 || ::lstat(path.c_str(), &named) != 0) return false;
  return held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

// The lock file at `path` (for `option` `target`) opened for locking:
// read-write when we may, else read-only; an Error with the first open's
// errno when neither works (the read-only retry fails with ENOENT whenever
// the file could not be created, which hides the cause).
Result<UniqueFd> open_lock_file(const std::filesystem::path& path, const std::filesystem::path& target,
                                std::string_view option) {
  const int flags = O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
  int fd = ::open(path.c_str(), O_RDWR | flags, 0666);
  const int first_error = errno;
  if (fd < 0 && first_error == EACCES) fd = ::open(path.c_str(), O_RDONLY | (flags & ~O_CREAT));
  if (fd < 0) {
    const int err = first_error == EACCES && errno != ENOENT ? errno : first_error;
    return Error{fmt::format("{} {}: cannot create its lock file in {} ({}): {}; give a path in a directory you "
                             "can write to",
                             option, target.string(), path.has_parent_path() ? path.parent_path().string() : ".",
                             path.filename().string(), std::strerror(err)),
                 err};
  }
  UniqueFd owned(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) return errno_error("cannot stat the lock file", path.string());
  if (!S_ISREG(info.st_mode))
    return Error{fmt::format("the lock file {} is not a regular file; remove it", path.string())};
  return owned;
}

}  // namespace

std::filesystem::path FileLock::lock_path(const std::filesystem::path& target) {
  const auto name = fmt::format(".mptrain-lock-{:016x}", name_hash(target.filename().native()));
  return target.has_parent_path() ? target.parent_path() / name : std::filesystem::path(name);
}

Result<FileLock> FileLock::acquire(const std::filesystem::path& target, std::string_view option) {
  const auto path = lock_path(target);
  // A few tries: each lock file we lock but find removed by the holder before us is a race lost, not a refusal.
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto fd = open_lock_file(path, target, option);
    if (!fd.ok()) return fd.error();
    int locked;
    do {
      locked = ::flock(fd->get(), LOCK_EX | LOCK_NB);
    } while (locked != 0 && errno == EINTR);
    if (locked != 0 && errno == EWOULDBLOCK) {
      const long pid = holder_pid(fd->get());
      const std::string who = pid > 0 ? fmt::format("pid {}", pid) : fmt::format("its lock file is {}", path.string());
      return Error{fmt::format("{} {} is being written by another mptrain run ({}); wait for it to end, or give "
                               "another {} path",
                               option, target.string(), who, option),
                   EWOULDBLOCK};
    }
    if (locked != 0) return errno_error("cannot lock", path.string());
    if (!still_linked(fd->get(), path)) continue;
    if (!holds_lock_content(fd->get())) {
      return Error{
          fmt::format("{} {}: its lock file's name, {}, is taken by a file that is not an mptrain lock "
                      "file; mptrain leaves it as it is: move it away, or give another {} path",
                      option, target.string(), path.string(), option)};
    }
    record_holder(fd->get());
    return FileLock(std::move(fd).value(), path);
  }
  return Error{fmt::format("cannot lock {}: it kept being removed and created again", path.string())};
}

FileLock::FileLock(UniqueFd fd, std::filesystem::path path)
    : fd_(std::move(fd)), path_(std::move(path)), owner_(::getpid()) {}

FileLock::~FileLock() {
  // Removed while still locked: a run that opened it before sees it unlinked once it gets the lock, and tries again.
  if (fd_.valid() && owner_ == ::getpid()) ::unlink(path_.c_str());
}

}  // namespace mptrain
