// The cgroup of a run (see run_cgroup.hpp).
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>
#include <string_view>

#include "procmgr/run_cgroup.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace mptrain::procmgr {

namespace {

// Where the run's cgroup goes in `version` (v1: the freezer hierarchy), as
// this process's mount table and /proc/self/cgroup say; nullopt when that
// hierarchy is not mounted here.
std::optional<CgroupLocation> own_cgroup(CgroupVersion version) {
  auto locator = CgroupLocator::open(FsRoot());
  if (!locator.ok()) return std::nullopt;
  auto location = locator->locate_in(0, version, "freezer");
  if (!location.ok() || !*location || (*location)->levels.empty()) return std::nullopt;
  return **location;
}

CgroupFiles files_of(const std::string& dir, CgroupVersion version) {
  CgroupFiles files;
  files.dir = dir;
  files.procs = dir + "/cgroup.procs";
  struct stat info {};
  if (version == CgroupVersion::v2 && ::stat((dir + "/cgroup.kill").c_str(), &info) == 0)
    files.kill = dir + "/cgroup.kill";
  if (version == CgroupVersion::v1) files.freeze = dir + "/freezer.state";
  return files;
}

// True when a process can join the cgroup through `join_fd`: a vforked child
// joins it and exits (and so leaves it empty again).
bool can_join(int join_fd) {
  sigset_t all_signals, previous_mask;
  ::sigfillset(&all_signals);
  ::pthread_sigmask(SIG_SETMASK, &all_signals, &previous_mask);
  const pid_t pid = ::vfork();
  if (pid == 0) ::_exit(join_cgroup(join_fd) ? 0 : 1);
  ::pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  if (pid < 0) return false;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Writes `text` to file `path`; false when it cannot. Async-signal-safe.
bool write_text(const char* path, const char* text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const auto length = std::strlen(text);
  const bool written = ::write(fd, text, length) == static_cast<ssize_t>(length);
  ::close(fd);
  return written;
}

// SIGKILLs every pid listed in cgroup.procs at `path`; returns how many it
// found (-1: unreadable). Async-signal-safe: a fixed buffer, digits parsed by hand.
int kill_listed(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buffer[4096];
  long pid = 0;
  bool in_number = false;
  int found = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      if (buffer[i] >= '0' && buffer[i] <= '9') {
        pid = pid * 10 + (buffer[i] - '0');
        in_number = true;
      } else if (in_number) {
        // A process this one cannot see (another PID namespace's) is listed as 0: kill(0) would end
        // this process's own group. It is not ours to kill.
        if (pid > 0) {
          ::kill(static_cast<pid_t>(pid), SIGKILL);
          ++found;
        }
        pid = 0;
        in_number = false;
      }
    }
  }
  if (in_number && pid > 0) {
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    ++found;
  }
  ::close(fd);
  return found;
}

void pause_briefly() {
  const timespec ten_ms{0, 10'000'000};
  ::nanosleep(&ten_ms, nullptr);
}

// How deep the watchdog follows cgroups a job made inside the run's.
constexpr int deepest_inner = 8;

// Kills what the cgroups below `dir` hold and removes them, deepest first.
// Async-signal-safe: getdents64 into a fixed buffer, paths on the stack.
void remove_inner(const char* dir, int depth) {
  if (depth >= deepest_inner) return;
  const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char entries[4096];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, fd, entries, sizeof entries);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      // struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1), then the name.
      unsigned short length = 0;
      std::memcpy(&length, entries + at + 16, sizeof length);
      const unsigned char type = static_cast<unsigned char>(entries[at + 18]);
      const char* name = entries + at + 19;
      at += length;
      if (length == 0) break;
      if (type != DT_DIR || std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
      char path[PATH_MAX];
      const std::size_t dir_length = std::strlen(dir);
      const std::size_t name_length = std::strlen(name);
      if (dir_length + name_length + 16 > sizeof path) continue;
      std::memcpy(path, dir, dir_length);
      path[dir_length] = '/';
      std::memcpy(path + dir_length + 1, name, name_length + 1);
      remove_inner(path, depth + 1);
      char procs[PATH_MAX];
      std::memcpy(procs, path, dir_length + 1 + name_length);
      std::memcpy(procs + dir_length + 1 + name_length, "/cgroup.procs", 14);
      for (int round = 0; round < 100 && kill_listed(procs) > 0; ++round) pause_briefly();
      for (int attempt = 0; attempt < 100 && ::rmdir(path) != 0 && errno == EBUSY; ++attempt) pause_briefly();
    }
  }
  ::close(fd);
}

}  // namespace

Result<RunCgroupChoice> run_cgroup_choice_from_env() {
  const char* value = std::getenv("MPTRAIN_RUN_CGROUP");
  const std::string_view text = value != nullptr ? value : "";
  if (text.empty() || text == "auto") return RunCgroupChoice::automatic;
  if (text == "v2") return RunCgroupChoice::v2;
  if (text == "v1") return RunCgroupChoice::v1;
  if (text == "off") return RunCgroupChoice::off;
  return Error{fmt::format("MPTRAIN_RUN_CGROUP={}: give auto, v2, v1 or off (or unset it)", text)};
}

// This process's run cgroup's name: mptrain-run-PID-TOKEN. The pid alone is not unique: two
// mptrains in sibling PID namespaces can both be pid 1, and each would take the other's cgroup.
const std::string& run_name() {
  static const std::string name = [] {
    std::uint64_t token = 0;
    if (::getrandom(&token, sizeof token, 0) != static_cast<ssize_t>(sizeof token)) {
      token = std::random_device{}() ^ static_cast<std::uint64_t>(::time(nullptr));
    }
    return fmt::format("mptrain-run-{}-{:08x}", ::getpid(), static_cast<std::uint32_t>(token));
  }();
  return name;
}

// The directory of this process's run cgroup in `own`.
std::string run_dir(const CgroupLocation& own) { return fmt::format("{}/{}", own.levels.front().dir, run_name()); }

std::vector<CgroupFiles> RunCgroup::planned(RunCgroupChoice choice) {
  std::vector<CgroupFiles> files;
  for (const auto version : {CgroupVersion::v2, CgroupVersion::v1}) {
    if (choice == RunCgroupChoice::off || (choice == RunCgroupChoice::v2 && version == CgroupVersion::v1) ||
        (choice == RunCgroupChoice::v1 && version == CgroupVersion::v2)) {
      continue;
    }
    if (const auto own = own_cgroup(version)) {
      CgroupFiles planned = files_of(run_dir(*own), version);
      if (version == CgroupVersion::v2) planned.kill = planned.dir + "/cgroup.kill";  // a failed write is harmless
      files.push_back(std::move(planned));
    }
  }
  return files;
}

Result<RunCgroup> RunCgroup::make_in(CgroupVersion version) {
  const auto own = own_cgroup(version);
  const std::string_view name = version == CgroupVersion::v2 ? "cgroup v2" : "cgroup v1's freezer";
  if (!own) return Error{fmt::format("this process is in no {} hierarchy that mptrain can find", name)};
  const std::string dir = run_dir(*own);
  // A name of this process's own (never another job's: an existing one is not taken over).
  if (::mkdir(dir.c_str(), 0755) < 0) return errno_error("cannot create", dir);
  auto files = files_of(dir, version);
  UniqueFd join(::open(files.procs.c_str(), O_WRONLY | O_CLOEXEC));
  if (!join.valid() || !can_join(join.get())) {
    const int err = join.valid() ? EACCES : errno;
    ::rmdir(dir.c_str());
    return errno_error("cannot join", dir, err);
  }
  return RunCgroup(version, std::move(files), std::move(join));
}

Result<RunCgroup> RunCgroup::create(RunCgroupChoice choice) {
  if (choice == RunCgroupChoice::off) return Error{"MPTRAIN_RUN_CGROUP=off: no cgroup for the run"};
  if (choice != RunCgroupChoice::v1) {
    auto made = make_in(CgroupVersion::v2);
    if (made.ok() || choice == RunCgroupChoice::v2) return made;
  }
  return make_in(CgroupVersion::v1);
}

RunCgroup::~RunCgroup() {
  if (!join_.valid()) return;  // moved from
  join_.reset();
  // Cgroups the job made inside it go first, deepest first (rmdir refuses a cgroup that has children).
  std::vector<std::string> inner;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(files_.dir, error), end; !error && it != end;
       it.increment(error)) {
    if (it->is_directory(error)) inner.push_back(it->path().string());
  }
  std::sort(inner.begin(), inner.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const auto& dir : inner) {
    for (int attempt = 0; attempt < 100 && ::rmdir(dir.c_str()) != 0 && errno == EBUSY; ++attempt) pause_briefly();
  }
  // Its processes are gone by now; a child that has just exited may still be leaving it.
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::rmdir(files_.dir.c_str()) == 0 || errno == ENOENT) return;
    if (errno != EBUSY) return;
    pause_briefly();
  }
}

std::vector<pid_t> RunCgroup::members() const {
  // Its own processes and those of the cgroups below it (a nested mptrain's run).
  std::vector<std::string> dirs{files_.dir};
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(files_.dir, error), end; !error && it != end;
       it.increment(error)) {
    if (it->is_directory(error)) dirs.push_back(it->path().string());
  }
  std::vector<pid_t> pids;
  for (const auto& dir : dirs) {
    auto text = FsRoot().read(dir + "/cgroup.procs");
    if (!text.ok()) continue;
    for (const auto line : split(*text, '\n')) {
      if (auto pid = parse_u64(trim(line)); pid && *pid > 0) pids.push_back(static_cast<pid_t>(*pid));
    }
  }
  return pids;
}

bool join_cgroup(int join_fd) {
  if (join_fd < 0) return true;
  ssize_t n;
  do {
    n = ::write(join_fd, "0", 1);
  } while (n < 0 && errno == EINTR);
  return n == 1;
}

void kill_cgroup_and_remove(const CgroupFiles& files) {
  if (::access(files.dir.c_str(), F_OK) != 0) return;
  if (!files.kill.empty()) write_text(files.kill.c_str(), "1");
  for (int round = 0; round < 100; ++round) {
    // v1: frozen, no process can fork while the others are being killed.
    if (!files.freeze.empty()) write_text(files.freeze.c_str(), "FROZEN");
    const int found = kill_listed(files.procs.c_str());
    if (!files.freeze.empty()) write_text(files.freeze.c_str(), "THAWED");
    if (found <= 0) break;
    pause_briefly();
  }
  remove_inner(files.dir.c_str(), 0);
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::rmdir(files.dir.c_str()) == 0 || errno != EBUSY) return;
    pause_briefly();
  }
}

}  // namespace mptrain::procmgr
