#include "util/fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>

#include "util/fd.hpp"

namespace mptrain {

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

namespace {

// The name of write_file_atomic's temporary files before their random letters.
constexpr std::string_view temporary_prefix = ".mptrain-";

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
      return Error{
          fmt::format("{} holds more than {} bytes, the most mptrain reads of such a file", path.string(), max_bytes)};
    }
  }
}

// The directory `path` is in ("." for a bare name).
std::filesystem::path directory_of(const std::filesystem::path& path) {
  return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

// The first bytes of `text`, for messages about very long names: whole UTF-8 characters, then "…".
std::string shortened(std::string_view text) {
  constexpr std::size_t shown = 40;
  if (text.size() <= shown) return std::string(text);
  std::size_t cut = shown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return std::string(text.substr(0, cut)) + "…";
}

Error name_too_long(const std::filesystem::path& path, std::string_view name, long name_max) {
  return Error{
      fmt::format("the name {} in {} is {} bytes; its file system takes at most {} (NAME_MAX): give a "
                  "shorter name",
                  shortened(name), shortened(path.native()), name.size(), name_max)};
}

// At most the first `size` bytes of `fd` (opened from `path`); an Error naming it otherwise.
Result<std::string> read_first(int fd, const std::filesystem::path& path, std::size_t size) {
  std::string head(size, '\0');
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, head.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot read", path.string());
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  head.resize(done);
  return head;
}

// At most the first `size` bytes of regular file `path`, never blocking; an Error naming it otherwise.
Result<std::string> read_head(const std::filesystem::path& path, std::size_t size) {
  auto fd = open_for_reading(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
  if (!fd.ok()) return errno_error("cannot check what is in", path.string(), fd.error().code);
  return read_first(fd->get(), path, size);
}

Result<UniqueFd> open_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno_error("cannot open directory", dir.string());
  return UniqueFd(fd);
}

// What is at `name` in directory `dir_fd` (not following a symbolic link); nullopt when nothing is.
std::optional<struct stat> stat_at(int dir_fd, const std::filesystem::path& name) {
  struct stat info {};
  if (::fstatat(dir_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  return info;
}

// A temporary file just created, and its name in its directory.
struct Temporary {
  UniqueFd fd;
  std::string name;
};

// A new file ".mptrain-XXXXXX" (six random letters or digits) in directory
// `dir_fd` (`dir`, for messages), created exclusively with `mode` less the
// umask; an Error with errno otherwise.
Result<Temporary> create_temporary(int dir_fd, const std::filesystem::path& dir, mode_t mode) {
  static constexpr std::string_view letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 random(std::random_device{}() ^ static_cast<std::uint64_t>(::getpid()));
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name(temporary_prefix);
    for (int i = 0; i < 6; ++i) name += letters[random() % letters.size()];
    const int fd = ::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd >= 0) return Temporary{UniqueFd(fd), std::move(name)};
    if (errno != EEXIST && errno != EINTR) return errno_error("cannot create a file in directory", dir.string());
  }
  return errno_error("cannot create a file in directory", dir.string(), EEXIST);
}

// Whether `existing`, the file write_file_atomic replaces in the directory `dir_fd`, keeps its
// owner, group and mode: when it is this process's user's, or its owner's directory holds it (root
// giving a user's file back to them grants nothing they could not do there). Elsewhere (a shared
// directory such as /tmp) another user's file is replaced by one of this process's, as new: a file
// planted there must not make what root writes theirs to rewrite.
bool kept_as_it_was(int dir_fd, const std::optional<struct stat>& existing) {
  if (!existing) return false;
  if (existing->st_uid == ::geteuid()) return true;
  struct stat dir {};
  return ::fstat(dir_fd, &dir) == 0 && dir.st_uid == existing->st_uid;
}

// Gives `fd` the owner and group of `existing` (the file at `path` it will
// replace); an Error saying whose they are when this process may not.
Status keep_owner(int fd, const struct stat& existing, const std::filesystem::path& path) {
  struct stat mine {};
  if (::fstat(fd, &mine) != 0) return errno_error("cannot stat the temporary file for", path.string());
  if (mine.st_uid == existing.st_uid && mine.st_gid == existing.st_gid) return ok_status();
  if (::fchown(fd, existing.st_uid, existing.st_gid) == 0) return ok_status();
  const int err = errno;
  return Error{fmt::format("cannot replace {} keeping its owner (uid {}) and group (gid {}): {}; run as its owner or "
                           "give another path",
                           path.string(), existing.st_uid, existing.st_gid, std::strerror(err)),
               err};
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
  return read_regular_file(path, max_system_file_bytes);
}

namespace {

// A regular file opened for reading, with its size; an Error naming the path
// when it cannot be opened or is something else (a FIFO, a device, a directory).
struct OpenRegular {
  UniqueFd fd;
  std::uintmax_t size = 0;  // as fstat says (kernel files say 0)
};
Result<OpenRegular> open_regular(const std::filesystem::path& path) {
  // O_NONBLOCK: opening a FIFO without a writer must not hang before fstat refuses it.
  auto fd = open_for_reading(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (!fd.ok()) return fd.error();
  struct stat info {};
  if (::fstat(fd->get(), &info) != 0) return errno_error("cannot stat", path.string());
  if (!S_ISREG(info.st_mode)) return Error{path.string() + " is " + file_kind(info.st_mode) + ", not a regular file"};
  return OpenRegular{std::move(*fd), static_cast<std::uintmax_t>(info.st_size)};
}

}  // namespace

Result<std::string> read_regular_file(const std::filesystem::path& path, std::size_t max_bytes) {
  auto file = open_regular(path);
  if (!file.ok()) return file.error();
  // Its size, where it has one, refuses a huge file before any read.
  if (file->size > max_bytes) {
    return Error{fmt::format("{} is {} bytes, more than the {} bytes mptrain reads of such a file", path.string(),
                             file->size, max_bytes)};
  }
  return read_all(file->fd.get(), path, max_bytes);
}

Result<std::string> read_regular_head(const std::filesystem::path& path, std::size_t size) {
  auto file = open_regular(path);
  if (!file.ok()) return file.error();
  return read_first(file->fd.get(), path, size);
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

Status check_name_fits(const std::filesystem::path& path) {
  const std::string& text = path.native();
  if (text.size() >= PATH_MAX) {
    return Error{fmt::format("the path {} is {} bytes; Linux takes at most {} (PATH_MAX): give a shorter path",
                             shortened(text), text.size(), PATH_MAX - 1)};
  }
  for (const auto& part : path) {
    if (part.native().size() > NAME_MAX) return name_too_long(path, part.native(), NAME_MAX);
  }
  const std::string name = path.filename().native();
  const long name_max = ::pathconf(directory_of(path).c_str(), _PC_NAME_MAX);
  if (name_max > 0 && static_cast<long>(name.size()) > name_max) return name_too_long(path, name, name_max);
  return ok_status();
}

Status check_replaceable(const std::filesystem::path& path, const FileKind& kind) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return ok_status();
    return errno_error("cannot check", path.string());
  }
  if (!S_ISREG(info.st_mode)) {
    return Error{"refusing to replace " + path.string() + ": it is " + file_kind(info.st_mode) +
                 ", not a regular file; give a regular file or a new name"};
  }
  if (kind.name.empty() || info.st_size == 0) return ok_status();
  auto head = read_head(path, kind.signature.size());
  if (!head.ok()) return head.error();
  if (*head == kind.signature) return ok_status();
  return Error{
      fmt::format("refusing to replace {}: it is not {} (it does not start with \"{}\"); move it away or "
                  "give a new name",
                  path.string(), kind.name, kind.signature)};
}

Status check_not_input(const std::filesystem::path& path, const std::vector<RunInput>& inputs) {
  struct stat target {};
  if (::lstat(path.c_str(), &target) != 0) return ok_status();  // a new name is nobody's input
  for (const auto& input : inputs) {
    struct stat info {};
    if (::stat(input.path.c_str(), &info) != 0) continue;
    if (info.st_dev == target.st_dev && info.st_ino == target.st_ino) {
      return Error{fmt::format("refusing to replace {}: it is {}, {}, an input of this run; give another path",
                               path.string(), input.role, input.path.string())};
    }
  }
  return ok_status();
}

std::string first_non_directory(const std::filesystem::path& path) {
  std::filesystem::path part;
  for (const auto& name : path) {
    part /= name;
    struct stat info {};
    if (::stat(part.c_str(), &info) != 0) return "";
    if (!S_ISDIR(info.st_mode)) return part.string() + " is " + file_kind(info.st_mode);
  }
  return "";
}

Status check_directory_usable(const std::filesystem::path& path, std::string_view option) {
  const auto dir = directory_of(path);
  const std::string subject = option.empty() ? path.string() : fmt::format("{} {}", option, path.string());
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      // The first part of the path that is missing or no directory, as the user wrote it.
      std::filesystem::path part;
      for (const auto& name : dir) {
        part /= name;
        struct stat on_the_way {};
        if (::stat(part.c_str(), &on_the_way) != 0) {
          return Error{
              fmt::format("{}: directory {} does not exist; create it or give another path", subject, part.string()),
              ENOENT};
        }
        if (!S_ISDIR(on_the_way.st_mode)) break;
      }
      if (const auto blocker = first_non_directory(dir); !blocker.empty()) {
        return Error{fmt::format("{}: {}, not a directory; give a path in an existing directory", subject, blocker),
                     ENOTDIR};
      }
    }
    return Error{fmt::format("{}: cannot reach directory {}: {}; give a path in a directory you can write to", subject,
                             dir.string(), std::strerror(err)),
                 err};
  }
  if (!S_ISDIR(info.st_mode)) {
    return Error{fmt::format("{}: {} is {}, not a directory; give a path in an existing directory", subject,
                             dir.string(), file_kind(info.st_mode)),
                 ENOTDIR};
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    const int err = errno;
    return Error{fmt::format("{}: cannot create files in {}: {}; choose a directory you can write to", subject,
                             dir.string(), std::strerror(err)),
                 err};
  }
  return ok_status();
}

Status check_can_create(const std::filesystem::path& path, std::string_view option) {
  if (auto usable = check_directory_usable(path, option); !usable.ok()) return usable;
  const auto dir = directory_of(path);
  const std::string subject = option.empty() ? path.string() : fmt::format("{} {}", option, path.string());
  auto dir_fd = open_directory(dir);
  if (!dir_fd.ok()) return Error{subject + ": " + dir_fd.error().message, dir_fd.error().code};
  const auto existing = stat_at(dir_fd->get(), path.filename());
  const bool keep = kept_as_it_was(dir_fd->get(), existing);
  auto temp = create_temporary(dir_fd->get(), dir, keep ? 0600 : 0666);
  if (!temp.ok()) {
    return Error{fmt::format("{}: cannot create files in {} (mptrain writes a temporary file there first, then "
                             "renames it): {}; choose a directory you can write to",
                             subject, dir.string(), std::strerror(temp.error().code)),
                 temp.error().code};
  }
  Status kept = keep ? keep_owner(temp->fd.get(), *existing, path) : ok_status();
  ::unlinkat(dir_fd->get(), temp->name.c_str(), 0);
  return kept;
}

Status write_file_atomic(const std::filesystem::path& path, std::string_view content, const FileKind& kind) {
  const std::string target = path.string();
  const auto dir = directory_of(path);
  const std::string name = path.filename().string();
  auto dir_fd = open_directory(dir);
  if (!dir_fd.ok()) return Error{"cannot write " + target + ": " + dir_fd.error().message, dir_fd.error().code};
  const auto existing = stat_at(dir_fd->get(), name);
  const bool keep = kept_as_it_was(dir_fd->get(), existing);
  // A file of ours replaced is never readable by more people than it was, even while being written.
  auto temp = create_temporary(dir_fd->get(), dir, keep ? 0600 : 0666);
  if (!temp.ok()) return errno_error("cannot create a temporary file for", target, temp.error().code);
  const std::string temp_path = (dir / temp->name).string();
  auto fail = [&](Error failure) {
    ::unlinkat(dir_fd->get(), temp->name.c_str(), 0);
    return Status(std::move(failure));
  };
  const int fd = temp->fd.get();
  if (auto written = write_all(fd, content, temp_path); !written.ok()) return fail(written.error());
  if (keep) {
    if (auto kept = keep_owner(fd, *existing, path); !kept.ok()) return fail(kept.error());
    if (::fchmod(fd, existing->st_mode & 07777) != 0) return fail(errno_error("cannot chmod", temp_path));
  }
  if (::fsync(fd) != 0) return fail(errno_error("cannot fsync", temp_path));
  // Checked again at the last moment: what appeared at `path` meanwhile is not clobbered either.
  if (auto replaceable = check_replaceable(path, kind); !replaceable.ok()) return fail(replaceable.error());
  if (::renameat(dir_fd->get(), temp->name.c_str(), dir_fd->get(), name.c_str()) != 0) {
    return fail(errno_error("cannot rename onto", target));
  }
  ::fsync(dir_fd->get());
  return ok_status();
}

std::string under_fsroot(std::string_view message) {
  const char* variable = std::getenv("MPTRAIN_FSROOT");
  if (variable == nullptr || *variable == '\0') return std::string(message);
  return fmt::format("MPTRAIN_FSROOT={}: {}; point MPTRAIN_FSROOT at a directory holding proc/ and sys/, or unset it",
                     variable, message);
}

}  // namespace mptrain
