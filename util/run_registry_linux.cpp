#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <random>
#include <system_error>

#include "util/number_check.hpp"
#include "util/run_registry.hpp"
#include "util/text.hpp"

namespace mptrain {

namespace {

constexpr std::string_view record_prefix = "mptrain-run-";
constexpr std::size_t most_record_bytes = 64 * 1024;

// Whether `directory` (lstat'ed into `info`) may hold records: a directory,
// not a link, owned by root or this user, sticky when others may write it.
Status trust_directory(const std::filesystem::path& directory, const struct stat& info) {
  if (!S_ISDIR(info.st_mode)) return Error{fmt::format("{} is not a directory", directory.string())};
  if (info.st_uid != 0 && info.st_uid != ::geteuid()) {
    return Error{
        fmt::format("{} belongs to uid {}, who could replace the runs' records; remove it or set "
                    "MPTRAIN_RUNS_DIR to a directory of yours",
                    directory.string(), info.st_uid)};
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (info.st_mode & S_ISVTX) == 0) {
    return Error{
        fmt::format("{} may be written by others and is not sticky (chmod 1777 it), so anyone could remove "
                    "a run's record",
                    directory.string())};
  }
  return ok_status();
}

// The directory's status, created (mode 1777, as /tmp) when missing and `create`.
Status open_directory(const std::filesystem::path& directory, bool create) {
  struct stat info {};
  if (::lstat(directory.c_str(), &info) != 0) {
    if (errno != ENOENT || !create) return errno_error("cannot read", directory.string());
    if (::mkdir(directory.c_str(), 01777) != 0 && errno != EEXIST)
      return errno_error("cannot create", directory.string());
    ::chmod(directory.c_str(), 01777);  // the umask took bits away
    if (::lstat(directory.c_str(), &info) != 0) return errno_error("cannot read", directory.string());
  }
  return trust_directory(directory, info);
}

// A name no other run takes: its owner, pid and 64 random bits.
std::string record_name(const RunRecord& record) {
  std::random_device random;
  const std::uint64_t token = (static_cast<std::uint64_t>(random()) << 32) | random();
  return fmt::format("{}{}-{}-{:016x}", record_prefix, record.uid, record.pid, token);
}

// Whether the record file open at `fd` is held by a live run (its lock is taken).
bool held(int fd) {
  if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {
    ::flock(fd, LOCK_UN);
    return false;
  }
  return errno == EWOULDBLOCK;
}

// The record in `directory` named `name`, when a live run holds it and it can be trusted.
std::optional<RunRecord> read_live(const std::filesystem::path& directory, const std::string& name) {
  const auto path = directory / name;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat info {};
  if (!fd.valid() || ::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 || !held(fd.get())) return std::nullopt;
  std::string text(most_record_bytes, '\0');
  const ssize_t got = ::pread(fd.get(), text.data(), text.size(), 0);
  if (got <= 0) return std::nullopt;
  text.resize(static_cast<std::size_t>(got));
  auto record = parse_record(text);
  if (!record.ok() || record->uid != info.st_uid) return std::nullopt;  // a record speaks for its file's owner only
  return *record;
}

// Removes this user's records in `directory` that no live run holds.
void remove_own_stale(const std::filesystem::path& directory) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    const auto name = entry.path().filename().string();
    if (!name.starts_with(fmt::format("{}{}-", record_prefix, ::geteuid()))) continue;
    UniqueFd fd(::open(entry.path().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat info {};
    if (!fd.valid() || ::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != ::geteuid()) continue;
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) ::unlink(entry.path().c_str());  // dead: ours to remove
  }
}

}  // namespace

Status prepare_runs_directory(const std::filesystem::path& directory) { return open_directory(directory, true); }

std::filesystem::path runs_directory() {
  const char* given = std::getenv("MPTRAIN_RUNS_DIR");
  if (given != nullptr && *given != '\0') return given;
  return "/dev/shm";
}

Result<RunRegistration> RunRegistration::create(const std::filesystem::path& directory, const RunRecord& record) {
  if (auto status = open_directory(directory, true); !status.ok()) return status.error();
  remove_own_stale(directory);
  RunRegistration registration;
  registration.path_ = directory / record_name(record);
  registration.fd_.reset(
      ::open(registration.path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!registration.fd_.valid()) return errno_error("cannot create the run's record", registration.path_.string());
  ::fchmod(registration.fd_.get(), 0644);  // readable by every user whatever the umask
  if (::flock(registration.fd_.get(), LOCK_EX | LOCK_NB) != 0) {
    const auto error = errno_error("cannot lock the run's record", registration.path_.string());
    ::unlink(registration.path_.c_str());
    return error;
  }
  if (auto written = registration.update(record); !written.ok()) {
    ::unlink(registration.path_.c_str());
    registration.path_.clear();
    return written.error();
  }
  return registration;
}

Status RunRegistration::update(const RunRecord& record) {
  // Readers read under the directory's lock, which the writer holds too: no one reads half a record.
  const auto text = record_text(record);
  if (::pwrite(fd_.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()) ||
      ::ftruncate(fd_.get(), static_cast<off_t>(text.size())) != 0)
    return errno_error("cannot write the run's record", path_.string());
  return ok_status();
}

RunRegistration::RunRegistration(RunRegistration&& other) noexcept
    : path_(std::exchange(other.path_, {})), fd_(std::move(other.fd_)) {}

RunRegistration& RunRegistration::operator=(RunRegistration&& other) noexcept {
  if (this != &other) {
    if (!path_.empty()) ::unlink(path_.c_str());
    path_ = std::exchange(other.path_, {});
    fd_ = std::move(other.fd_);
  }
  return *this;
}

RunRegistration::~RunRegistration() {
  if (!path_.empty()) ::unlink(path_.c_str());  // before the lock goes with the descriptor
}

Result<std::vector<RunRecord>> live_runs(const std::filesystem::path& directory) {
  struct stat info {};
  if (::lstat(directory.c_str(), &info) != 0) {
    if (errno == ENOENT) return std::vector<RunRecord>{};
    return errno_error("cannot read", directory.string());
  }
  if (auto status = trust_directory(directory, info); !status.ok()) return status.error();
  std::vector<RunRecord> runs;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    const auto name = entry.path().filename().string();
    if (!name.starts_with(record_prefix)) continue;
    if (auto record = read_live(directory, name)) runs.push_back(std::move(*record));
  }
  if (error) return Error{fmt::format("cannot list {}: {}", directory.string(), error.message()), error.value()};
  return runs;
}

}  // namespace mptrain
