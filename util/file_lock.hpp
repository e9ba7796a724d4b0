// The advisory lock a run holds, for its whole life, on a file it will
// write at the end (a checkpoint, a trace), so that a second run given the
// same path is refused before it starts work instead of silently replacing
// the first run's file, or having its own replaced.
//
// The lock is an flock(2) on a lock file beside the target,
// ".mptrain-lock-" and 16 hex digits of a hash of the target's name: a name
// of fixed length (so it fits wherever the target fits), in the target's
// directory (so every spelling of the path, symbolic links and bind mounts
// included, finds the same one), never the target itself (which the atomic
// write replaces). The lock file holds the pid of the run holding it, for
// the message the next one prints, and is removed when the lock is let go.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "util/fd.hpp"
#include "util/result.hpp"

namespace mptrain {

// Whether `content` is what a lock file of mptrain's holds: nothing, or
// one pid and a newline. Any other file of a lock file's name is a user's,
// which mptrain neither truncates nor removes.
bool is_lock_content(std::string_view content);

// Whether the file open at `fd` holds what is_lock_content accepts (its first bytes).
bool holds_lock_content(int fd);

// An flock held on the lock file of a target path; let go on destruction.
class FileLock {
 public:
  // Locks `target` (not following: the lock file is in `target`'s own
  // directory), which the command was given as `option` ("--save-model").
  // When another process holds the lock, an Error "OPTION TARGET is being
  // written by another mptrain run (pid N); wait for it to end, or give
  // another OPTION path" whose code is EWOULDBLOCK; an Error naming the
  // lock file and errno when it cannot be created or locked, and one that
  // says so when a file of the lock file's name is not a lock file
  // (is_lock_content): it is left as it is. Never waits.
  static Result<FileLock> acquire(const std::filesystem::path& target, std::string_view option);

  // The lock file's path for `target`.
  static std::filesystem::path lock_path(const std::filesystem::path& target);

  FileLock(FileLock&&) noexcept = default;
  FileLock& operator=(FileLock&&) = delete;  // would leave the lock file it let go behind
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  // Removes the lock file (while still holding it), then lets the lock go.
  ~FileLock();

 private:
  FileLock(UniqueFd fd, std::filesystem::path path);

  UniqueFd fd_;
  std::filesystem::path path_;
  pid_t owner_ = 0;  // the process that took it: a forked child never removes the lock file
};

}  // namespace mptrain
