#include "util/fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "util/fd.hpp"

namespace mptrain {

namespace {

// "a directory", "a FIFO" and the like, for file type bits `mode`.
std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISREG(mode)) return "a regular file";
  return "a special file";
}

// `path` opened with `flags` (and O_CLOEXEC), retrying on EINTR; an Error naming it otherwise.
Result<UniqueFd> open_for_reading(const std::filesystem::path& path, int flags) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return errno_error("cannot open", path.string());
  return UniqueFd(fd);
}

// Everything `fd` (opened from `path`) holds, or an Error once it exceeds
// `max_bytes` (std::string::npos: no limit) or a read fails.
Result<std::string> read_all(int fd, const std::filesystem::path& path, std::size_t max_bytes) {
  std::string content;
  char buffer[8192];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot read", path.string());
    if (n == 0) return content;
    content.append(buffer, static_cast<std::size_t>(n));
    if (content.size() > max_bytes) {
      return Error{path.string() + " is larger than the " + std::to_string(max_bytes) + " bytes it may hold"};
    }
  }
}

}  // namespace

FsRoot FsRoot::from_env() {
  const char* root = std::getenv("MPTRAIN_FSROOT");
  if (root == nullptr || *root == '\0') return FsRoot();
  return FsRoot(root);
}

std::filesystem::path FsRoot::path(std::string_view absolute) const {
  while (!absolute.empty() && absolute.front() == '/') absolute.remove_prefix(1);
  return root_ / absolute;
}

Result<std::string> FsRoot::read(std::string_view absolute) const {
  return read_regular_file(path(absolute), max_system_file_bytes);
}

Result<std::vector<std::string>> FsRoot::list(std::string_view absolute) const {
  const auto dir_path = path(absolute);
  DIR* dir = ::opendir(dir_path.c_str());
  if (dir == nullptr) return errno_error("cannot open directory", dir_path.string());
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(dir);
  return names;
}

Result<std::string> read_file(const std::filesystem::path& path) {
  auto fd = open_for_reading(path, O_RDONLY);
  if (!fd.ok()) return fd.error();
  return read_all(fd->get(), path, std::string::npos);
}

Result<std::string> read_regular_file(const std::filesystem::path& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO without a writer must not hang before fstat refuses it.
  auto fd = open_for_reading(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (!fd.ok()) return fd.error();
  struct stat info {};
  if (::fstat(fd->get(), &info) != 0) return errno_error("cannot stat", path.string());
  if (!S_ISREG(info.st_mode)) return Error{path.string() + " is " + file_kind(info.st_mode) + ", not a regular file"};
  // Its size, where it has one (kernel files say 0), refuses a huge file before any read.
  if (static_cast<std::uintmax_t>(info.st_size) > max_bytes) {
    return Error{path.string() + " is larger than the " + std::to_string(max_bytes) + " bytes it may hold (" +
                 std::to_string(info.st_size) + " bytes)"};
  }
  return read_all(fd->get(), path, max_bytes);
}

FoundFile check_readable_file(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return {false, ok_status()};
    return {true, errno_error("cannot read", path.string())};
  }
  if (!S_ISREG(info.st_mode)) {
    return {true, Error{path.string() + " is " + file_kind(info.st_mode) + ", not a regular file"}};
  }
  if (::access(path.c_str(), R_OK) != 0) return {true, errno_error("cannot read", path.string())};
  return {true, ok_status()};
}

Status check_replaceable(const std::filesystem::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return ok_status();
    return errno_error("cannot check", path.string());
  }
  if (S_ISREG(info.st_mode)) return ok_status();
  return Error{"refusing to replace " + path.string() + ": it is " + file_kind(info.st_mode) +
               ", not a regular file; give a regular file or a new name"};
}

Status check_can_create(const std::filesystem::path& path) {
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    return Error{"cannot write " + path.string() + ": directory " + dir.string() + " does not exist"};
  }
  if (::access(dir.c_str(), W_OK) != 0) return errno_error("cannot write into directory", dir.string());
  return ok_status();
}

Status write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  const std::string target = path.string();
  std::string temp = target + ".tmpXXXXXX";
  const UniqueFd fd(::mkstemp(temp.data()));
  if (!fd.valid()) return errno_error("cannot create temporary file for", target);
  auto fail = [&](Error error) {
    ::unlink(temp.c_str());
    return Status(std::move(error));
  };
  if (auto written = write_all(fd.get(), content, temp); !written.ok()) return fail(written.error());
  if (::fchmod(fd.get(), 0644) != 0) return fail(errno_error("cannot chmod", temp));
  if (::fsync(fd.get()) != 0) return fail(errno_error("cannot fsync", temp));
  // Checked again at the last moment: what appeared at `path` meanwhile is not clobbered either.
  if (auto replaceable = check_replaceable(path); !replaceable.ok()) return fail(replaceable.error());
  if (::rename(temp.c_str(), target.c_str()) != 0) return fail(errno_error("cannot rename onto", target));
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.valid()) ::fsync(dir_fd.get());
  return ok_status();
}

}  // namespace mptrain
