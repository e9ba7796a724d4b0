#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>

#include "procmgr/group.hpp"
#include "tune/trial.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace mptrain::tune {
namespace {

using Clock = std::chrono::steady_clock;

// How often the output files are read and the child checked.
constexpr int tick_ms = 100;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// An output file of the trial, read as it grows.
struct Tail {
  int fd = -1;
  int stream = 0;
  int source = 0;
};

// The source (rank) and stream of DIRECTORY/rank-R.out or .err; nullopt for other names.
std::optional<std::pair<int, int>> rank_file(std::string_view name) {
  if (!name.starts_with("rank-")) return std::nullopt;
  name.remove_prefix(5);
  const std::size_t dot = name.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto rank = parse_u64(name.substr(0, dot));
  const std::string_view ending = name.substr(dot + 1);
  if (!rank || *rank > 1u << 20 || (ending != "out" && ending != "err")) return std::nullopt;
  const int source = static_cast<int>(*rank);
  return std::pair{source, source * 2 + (ending == "err" ? 1 : 0)};
}

// The trial's output files, opened as they appear.
class Tails {
 public:
  Tails(std::string directory, bool mptrain_stderr) : directory_(std::move(directory)), mptrain_(mptrain_stderr) {}
  ~Tails() {
    for (auto& [name, tail] : tails_) ::close(tail.fd);
  }
  Tails(const Tails&) = delete;
  Tails& operator=(const Tails&) = delete;

  // Reads what every file gained since the last call into `reader`.
  void read(MetricReader& reader, double seconds) {
    discover();
    if (!mptrain_ && !tails_.empty() && !started_) started_ = seconds;
    char buffer[65536];
    for (auto& [name, tail] : tails_) {
      for (;;) {
        const ssize_t got = ::read(tail.fd, buffer, sizeof buffer);
        if (got <= 0) break;
        if (!started_) started_ = seconds;
        reader.feed(tail.stream, tail.source, {buffer, static_cast<std::size_t>(got)}, seconds);
      }
    }
  }

  // When the program started, as far as its output shows: its first output file appeared (the
  // launcher or the shell made it just before the program ran), or, for the built-in training,
  // mptrain first printed. nullopt until then.
  std::optional<double> started() const { return started_; }

 private:
  void discover() {
    if (mptrain_) {
      open_tail("mptrain.err", 0, 0);
      return;
    }
    DIR* dir = ::opendir(directory_.c_str());
    if (dir == nullptr) return;
    while (const dirent* entry = ::readdir(dir)) {
      if (const auto file = rank_file(entry->d_name)) open_tail(entry->d_name, file->first, file->second);
    }
    ::closedir(dir);
  }
  void open_tail(const std::string& name, int source, int stream) {
    if (tails_.contains(name)) return;
    const int fd = ::open((directory_ + "/" + name).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    if (fd >= 0) tails_.emplace(name, Tail{fd, stream, source});
  }

  std::string directory_;
  bool mptrain_;
  std::map<std::string, Tail> tails_;
  std::optional<double> started_;
};

// Starts `command` in a process group of its own, its stdout in
// DIRECTORY/report.json and its stderr in DIRECTORY/mptrain.err, stdin from
// /dev/null; it gets SIGTERM should tune die.
Result<pid_t> start(const TrialCommand& command) {
  const std::string out = command.directory + "/report.json";
  const std::string err = command.directory + "/mptrain.err";
  // Opened here, not in the child: a full disk or too few descriptors is mptrain's failure, said as one.
  const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (o < 0) return errno_error("cannot write a trial's output:", out);
  const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (e < 0) {
    auto error = errno_error("cannot write a trial's output:", err);
    ::close(o);
    return error;
  }
  std::vector<char*> argv;
  for (const auto& word : command.argv) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  // Trials run one at a time: the mptrain of a trial plans at once, without the start window in
  // which runs started together see each other (launch/sharing.hpp), which would only add to its time.
  // The built-in training prints its progress every half second, so that a short window holds lines enough.
  static char no_window[] = "MPTRAIN_START_WINDOW=0";
  static char progress[] = "MPTRAIN_PROGRESS_INTERVAL=0.5";
  std::vector<char*> envp{no_window, progress};
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view variable(*entry);
    if (variable.starts_with("MPTRAIN_START_WINDOW=") || variable.starts_with("MPTRAIN_PROGRESS_INTERVAL=")) continue;
    envp.push_back(*entry);
  }
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    auto error = errno_error("cannot start a trial:", "fork");
    ::close(o);
    ::close(e);
    return error;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);
    const int in = ::open("/dev/null", O_RDONLY);
    if (in < 0 || ::dup2(in, 0) < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(127);
    procmgr::SignalRelay::close_in_child();
    procmgr::SignalRelay::reset_in_child();
    procmgr::SignalRelay::unblock_in_child();
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(o);
  ::close(e);
  return pid;
}

// The shell-style code of wait status `status`.
int shell_code(int status) {
  const auto kind = WIFSIGNALED(status) ? procmgr::ExitStatus::Kind::signaled : procmgr::ExitStatus::Kind::exited;
  return procmgr::ExitStatus{kind, WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status)}.shell_code();
}

// Stops the trial: SIGTERM to its process (mptrain stops the program's
// whole tree), SIGKILL to its group after `grace`; returns its wait status.
int stop(pid_t pid, double grace) {
  ::kill(pid, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::duration<double>(grace);
  int status = 0;
  while (Clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    ::usleep(20'000);
  }
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return status;
}

// The last `count` lines of file `path`.
std::vector<std::string> tail_lines(const std::string& path, std::size_t count) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!trim(line).empty()) lines.push_back(line);
  }
  if (lines.size() > count) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(count));
  return lines;
}

// The last JSON document of DIRECTORY/report.json; null when none parses.
nlohmann::json read_report(const std::string& directory) {
  nlohmann::json last;
  std::ifstream in(directory + "/report.json");
  for (std::string line; std::getline(in, line);) {
    auto document = nlohmann::json::parse(line, nullptr, false);
    if (document.is_object()) last = std::move(document);
  }
  return last;
}

// Whether a stop signal is among those the relay took.
int stop_signal_in(procmgr::SignalRelay& relay) {
  for (const int signal : relay.take()) {
    const auto stops = procmgr::stop_signals();
    if (std::find(stops.begin(), stops.end(), signal) != stops.end()) return signal;
  }
  return 0;
}

}  // namespace

Result<std::string> this_binary() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return Error{"cannot read /proc/self/exe to find mptrain's own binary: " + error.message(), 0};
  return path.string();
}

namespace {

constexpr std::string_view work_prefix = "mptrain-tune-";

// The folder for work directories: $TMPDIR, else /tmp.
std::string work_parent() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

}  // namespace

int remove_stale_work_directories(const std::string& parent, double quiet_s) {
  DIR* listing = ::opendir(parent.c_str());
  if (listing == nullptr) return 0;
  int removed = 0;
  const auto now = std::chrono::system_clock::now();
  while (const dirent* entry = ::readdir(listing)) {
    const std::string_view name = entry->d_name;
    if (!name.starts_with(work_prefix)) continue;
    const std::string path = parent + "/" + std::string(name);
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat seen {};
    const bool ours = ::fstat(fd, &seen) == 0 && seen.st_uid == ::geteuid();
    const auto changed = std::chrono::system_clock::from_time_t(seen.st_mtim.tv_sec);
    const bool quiet = std::chrono::duration<double>(now - changed).count() >= quiet_s;
    if (ours && quiet && ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
      if (!ignored) ++removed;
    }
    ::close(fd);
  }
  ::closedir(listing);
  return removed;
}

Result<std::unique_ptr<WorkDirectory>> WorkDirectory::make() {
  const std::string parent = work_parent();
  // A folder just made is locked within microseconds; 10 s of quiet leaves any such race far behind.
  remove_stale_work_directories(parent, 10);
  std::string pattern = parent + "/" + std::string(work_prefix) + "XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return errno_error("cannot make a folder for the trials:", pattern);
  const int lock = ::open(pattern.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (lock < 0 || ::flock(lock, LOCK_EX | LOCK_NB) != 0) {
    auto error = errno_error("cannot lock the folder for the trials:", pattern);
    if (lock >= 0) ::close(lock);
    ::rmdir(pattern.c_str());
    return error;
  }
  return std::unique_ptr<WorkDirectory>(new WorkDirectory(pattern, lock));
}

WorkDirectory::~WorkDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  ::close(lock_);
}

Result<TrialResult> run_trial(const TrialCommand& command, const TrialTiming& timing, MetricReader& reader,
                              procmgr::SignalRelay& relay) {
  TrialResult result;
  Tails tails(command.directory, command.read_mptrain_stderr);
  const auto started = Clock::now();
  auto pid = start(command);
  if (!pid.ok()) return pid.error();
  const bool whole_run = timing.window <= 0;
  const auto end = [&] { return whole_run ? timing.limit : window_of(timing, tails.started()).to; };
  int status = 0;
  bool exited = false;
  while (!exited) {
    pollfd signals{relay.fd(), POLLIN, 0};
    ::poll(&signals, 1, tick_ms);
    tails.read(reader, since(started));
    if (::waitpid(*pid, &status, WNOHANG) == *pid) {
      exited = true;
      break;
    }
    if ((signals.revents & POLLIN) != 0) result.stop_signal = stop_signal_in(relay);
    if (result.stop_signal != 0 || since(started) >= end()) break;
  }
  result.seconds = since(started);
  if (!exited) status = stop(*pid, timing.grace);
  tails.read(reader, since(started));
  reader.finish();
  result.wall_seconds = since(started);
  result.exit_code = shell_code(status);
  result.report = read_report(command.directory);
  result.last_lines = reader.last_lines();
  result.unit = reader.unit();
  result.mptrain_lines = tail_lines(command.directory + "/mptrain.err", 8);
  if (result.stop_signal != 0) {
    result.end = TrialEnd::interrupted;
  } else if (exited && result.exit_code != 0) {
    result.end = TrialEnd::failed;
  } else if (whole_run) {
    result.end = exited ? TrialEnd::measured : TrialEnd::over_limit;
    if (exited) result.throughput = result.seconds;
  } else if (const TrialWindow window = window_of(timing, tails.started()); exited && result.seconds < window.from) {
    result.end = TrialEnd::ended_early;
  } else {
    result.throughput = reader.throughput(window.from, std::min(result.seconds, window.to));
  }
  return result;
}

}  // namespace mptrain::tune
