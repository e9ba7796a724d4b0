// File-system access with an injectable root: readers of /proc and /sys take
// a root directory (default "/") so tests can point them at recorded trees
// under tests/data/. The environment variable MPTRAIN_FSROOT sets the root
// for the whole binary (used by end-to-end tests).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace mptrain {

// The most a file read through FsRoot may hold: kernel files are small (a
// /proc/PID/maps of the kernel's 65,530 mappings is about 7 MB), and a
// recorded tree or MPTRAIN_FSROOT may hold anything (/dev/zero, a FIFO, a
// sparse file of a gigabyte), which is refused instead of read forever.
inline constexpr std::size_t max_system_file_bytes = std::size_t{16} << 20;

// A root directory under which absolute kernel paths are resolved.
class FsRoot {
 public:
  // The real file system.
  FsRoot() : root_("/") {}
  explicit FsRoot(std::filesystem::path root) : root_(std::move(root)) {}
  // MPTRAIN_FSROOT when set and non-empty, otherwise "/".
  static FsRoot from_env();

  // `absolute` ("/proc/stat") placed under the root.
  std::filesystem::path path(std::string_view absolute) const;
  // The whole content of `absolute` under the root; an Error naming the path
  // and errno, or saying it is no regular file or holds more than
  // max_system_file_bytes (it never blocks on a FIFO).
  Result<std::string> read(std::string_view absolute) const;
  // The names in directory `absolute` under the root; an Error naming the path and errno.
  Result<std::vector<std::string>> list(std::string_view absolute) const;
  // True when the root is the real "/".
  bool is_real() const { return root_ == "/"; }
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

// The whole content of file `path`; an Error naming the path and errno.
Result<std::string> read_file(const std::filesystem::path& path);
// The content of regular file `path`, which may hold at most `max_bytes`;
// an Error naming the path when it is not a regular file (a device such as
// /dev/zero, a FIFO, a directory), is larger, or cannot be read. Never
// reads more than `max_bytes` + 1 bytes, and never blocks on a FIFO.
Result<std::string> read_regular_file(const std::filesystem::path& path, std::size_t max_bytes);
// Whether something is at a path (`found`: false only for ENOENT) and, if so,
// whether it is a regular file this process may read (`usable`: else an
// Error saying what it is, "… is a FIFO, not a regular file", or naming errno).
struct FoundFile {
  bool found = false;
  Status usable;
};
// `path`, followed through symbolic links, as a FoundFile.
FoundFile check_readable_file(const std::filesystem::path& path);

// Ok when `path` is a new name or an existing regular file, the only things
// write_file_atomic replaces; an Error saying what it is otherwise (a
// directory, symbolic link, FIFO, device or socket), which callers treat as
// a usage error: the rename would turn it into a plain file.
Status check_replaceable(const std::filesystem::path& path);
// Ok when `path`'s directory exists and is writable, so write_file_atomic
// can create its temporary file there; an Error saying which fails otherwise.
Status check_can_create(const std::filesystem::path& path);

// Writes `content` to `path` atomically: a temporary file beside it, fsync,
// rename, fsync of the directory. Refuses (before the rename) a `path` that
// check_replaceable refuses, so it never replaces anything but a regular
// file. Returns an Error naming the step and errno; on any error an earlier
// file at `path` is left as it was.
Status write_file_atomic(const std::filesystem::path& path, std::string_view content);

}  // namespace mptrain
