// File-system access with an injectable root: readers of /proc and /sys take
// a root directory (default "/") so tests can point them at recorded trees
// under tests/data/. The environment variable MPTRAIN_FSROOT sets the root
// for the whole binary (used by end-to-end tests).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace mptrain {

// "a directory", "a FIFO", "a character device" and the like, for the file type bits of `mode`.
std::string file_kind(mode_t mode);

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

// The whole content of regular file `path`, of at most max_system_file_bytes
// (read_regular_file); an Error naming the path and errno, or what it is.
Result<std::string> read_file(const std::filesystem::path& path);
// The content of regular file `path`, which may hold at most `max_bytes`;
// an Error naming the path when it is not a regular file (a device such as
// /dev/zero, a FIFO, a directory), is larger, or cannot be read. Never
// reads more than `max_bytes` + 1 bytes, and never blocks on a FIFO.
Result<std::string> read_regular_file(const std::filesystem::path& path, std::size_t max_bytes);
// At most the first `size` bytes of regular file `path` (followed through
// symbolic links), fewer when it is shorter; an Error naming the path when
// it is not a regular file or cannot be read. Never blocks on a FIFO.
Result<std::string> read_regular_head(const std::filesystem::path& path, std::size_t size);
// Whether something is at a path (`found`: false only for ENOENT) and, if so,
// whether it is a regular file this process may read (`usable`: else an
// Error saying what it is, "… is a FIFO, not a regular file", or naming errno).
struct FoundFile {
  bool found = false;
  Status usable;
};
// `path`, followed through symbolic links, as a FoundFile.
FoundFile check_readable_file(const std::filesystem::path& path);

// What a command writes (a checkpoint, a trace), so that an earlier file of
// the same kind can be told from one that must not be replaced.
struct FileKind {
  std::string_view name;       // "an mptrain checkpoint"; empty: any regular file
  std::string_view signature;  // the bytes every file of the kind starts with
};

// A file a run reads, and what it is to the run ("the training images (--data)").
struct RunInput {
  std::filesystem::path path;
  std::string role;
};

// Ok when `path` fits Linux's limits: shorter than PATH_MAX, no name longer
// than NAME_MAX (the last one: than its directory's file system allows);
// an Error saying which part is too long and by how much otherwise.
Status check_name_fits(const std::filesystem::path& path);
// Ok when `path` is a new name, an empty regular file, or a regular file
// of `kind` (starting with its signature; any regular file when `kind` has
// no name), the only things write_file_atomic replaces; an Error saying
// what it is otherwise (a directory, symbolic link, FIFO, device, socket,
// or a file of another kind), which callers treat as a usage error.
Status check_replaceable(const std::filesystem::path& path, const FileKind& kind = {});
// Ok when `path` is none of `inputs`, compared by device and inode, so
// through symbolic links, hard links and other spellings of the same path;
// an Error naming the input it is otherwise (a usage error for callers).
Status check_not_input(const std::filesystem::path& path, const std::vector<RunInput>& inputs);
// The first part of `path`, from its start, that exists but is no directory
// (followed through symbolic links), as "/etc/passwd is a regular file";
// "" when every part that exists is a directory.
std::string first_non_directory(const std::filesystem::path& path);
// Ok when `path`'s directory exists, is a directory and this process may
// create files in it (access(2)); an Error (with its errno) starting
// "`option` `path`: " that names the first part of the path that is
// missing or no directory, or why it cannot be reached or written.
Status check_directory_usable(const std::filesystem::path& path, std::string_view option = {});
// Ok when write_file_atomic can create its temporary file in `path`'s
// directory — tried for real, then removed — and give it the owner of the
// file at `path` where write_file_atomic keeps it; an Error saying which fails otherwise (starting
// "`option` `path`: " when the directory is the problem, as above).
Status check_can_create(const std::filesystem::path& path, std::string_view option = {});

// Writes `content` to `path` atomically: a temporary file beside it, with a
// short fixed-length name (".mptrain-XXXXXX") so that any name that fits
// also fits its temporary, fsync, rename, fsync of the directory. A file
// replaced keeps its mode, owner and group when it is this process's user's
// or sits in its owner's directory; a new file, and one that replaces
// another user's elsewhere (a file planted in /tmp), gets this process's
// owner and 0666 less the umask. Refuses (before the rename) a `path` that check_replaceable
// refuses for `kind`. Returns an Error naming the step and errno; on any
// error an earlier file at `path` is left as it was.
Status write_file_atomic(const std::filesystem::path& path, std::string_view content, const FileKind& kind = {});

// `message`, a failed read of /proc or /sys, as said when MPTRAIN_FSROOT
// chose where it was read: "MPTRAIN_FSROOT=DIR: `message`; point
// MPTRAIN_FSROOT at a directory holding proc/ and sys/, or unset it"; when
// it is unset or empty, `message` unchanged.
std::string under_fsroot(std::string_view message);

}  // namespace mptrain
