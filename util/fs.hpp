// File-system access with an injectable root: readers of /proc and /sys take
// a root directory (default "/") so tests can point them at recorded trees
// under tests/data/. The environment variable MPTRAIN_FSROOT sets the root
// for the whole binary (used by end-to-end tests).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace mptrain {

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
  // The whole content of `absolute` under the root; an Error naming the path and errno.
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

// Ok when `path` can be created or replaced by write_file_atomic: its
// directory exists and is writable and `path` is not a directory; an Error
// saying which of these fails otherwise.
Status check_can_create(const std::filesystem::path& path);

// Writes `content` to `path` atomically: a temporary file beside it, fsync,
// rename, fsync of the directory. Returns an Error naming the step and errno.
Status write_file_atomic(const std::filesystem::path& path, std::string_view content);

}  // namespace mptrain
