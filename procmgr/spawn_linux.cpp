#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>

#include "procmgr/run_cgroup.hpp"
#include "procmgr/signals.hpp"
#include "procmgr/spawn.hpp"
#include "util/failure.hpp"
#include "util/fd.hpp"
#include "util/pinning.hpp"
#include "util/text.hpp"

namespace mptrain::procmgr {

namespace {

// The step of the child's setup a report is about.
enum class Step : int { death_signal, streams, cpu_affinity, memory_policy, exec };

// What a child writes on its report pipe when a step fails.
struct Report {
  Step step;
  int error;
};

// Everything the child touches, laid out before fork.
struct Prepared {
  pid_t parent = 0;
  std::optional<IdMask> cpu_mask;    // nullopt: keep the parent's affinity
  std::optional<IdMask> node_mask;   // nullopt: keep the parent's memory policy
  std::optional<rlimit> file_limit;  // nullopt: keep the parent's limit on open files
  std::vector<char*> argv;
  std::vector<char*> envp;
  int report_fd = -1;
};

// "cannot pin rank 1 to CPUs 2-3" and the like, for a failed `step`.
std::string describe_failure(Step step, const ChildTarget& target, const WorkerSpec& spec) {
  switch (step) {
    case Step::death_signal:
      return fmt::format("cannot set the parent-death signal of {}", worker_name(spec));
    case Step::streams:
      return fmt::format("cannot redirect the output of {}", worker_name(spec));
    case Step::cpu_affinity:
      return fmt::format("cannot pin {} to CPUs {}", worker_name(spec), spec.cpus.to_short_string());
    case Step::memory_policy:
      return fmt::format("cannot set the memory policy of {} ({})", worker_name(spec), to_string(spec.memory));
    case Step::exec:
      return fmt::format("cannot run '{}' for {}", target.argv.at(0), worker_name(spec));
  }
  return fmt::format("cannot start {}", worker_name(spec));
}

bool is_executable_file(const std::string& path, int* error) {
  struct stat info {};
  if (::stat(path.c_str(), &info) < 0) {
    *error = errno;
    return false;
  }
  if (S_ISDIR(info.st_mode)) {
    *error = EISDIR;
    return false;
  }
  if (::access(path.c_str(), X_OK) < 0) {
    *error = errno;
    return false;
  }
  return true;
}

std::string not_runnable(std::string_view name, std::string_view path, int error) {
  if (error == ENOENT) return fmt::format("cannot run '{}': no such file", name);
  if (error == EISDIR) return fmt::format("cannot run '{}': '{}' is a directory", name, path);
  if (error == EACCES) return fmt::format("cannot run '{}': '{}' is not executable (permission denied)", name, path);
  return fmt::format("cannot run '{}': {}", name, std::strerror(error));
}

// The interpreter named by the "#!" line of file `path` ("" when it has
// none), read as the kernel reads it: after spaces and tabs, up to the next
// space, tab or newline (so a carriage return stays part of it).
std::string shebang_interpreter(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  char head[256];
  const ssize_t n = fd.valid() ? ::read(fd.get(), head, sizeof head) : -1;
  if (n < 2 || head[0] != '#' || head[1] != '!') return {};
  std::string_view line(head + 2, static_cast<std::size_t>(n - 2));
  line.remove_prefix(std::min(line.size(), line.find_first_not_of(" \t")));
  return std::string(line.substr(0, line.find_first_of(" \t\n")));
}

// Why execve of `path`, an existing file, failed with ENOENT: what it needs
// to start is missing, its #! interpreter or (for a program) its loader.
std::string missing_interpreter(const std::string& path) {
  const std::string interpreter = shebang_interpreter(path);
  if (interpreter.empty()) {
    return "a file it needs to start is missing (a program's dynamic loader: was it built for another system?)";
  }
  if (interpreter.ends_with('\r')) {
    return fmt::format(
        "its #! line ends in a carriage return (Windows line endings), so its interpreter '{}\\r' "
        "does not exist; convert the script with dos2unix",
        interpreter.substr(0, interpreter.size() - 1));
  }
  return fmt::format("its interpreter '{}' (from its #! line) does not exist; fix the #! line or install it",
                     interpreter);
}

// Why the child's `step` failed with `error`: strerror, or for an exec that
// found no file although the program exists, what is missing.
std::string failure_cause(Step step, int error, const ChildTarget& target) {
  struct stat info {};
  if (step == Step::exec && error == ENOENT && ::stat(target.path.c_str(), &info) == 0) {
    return missing_interpreter(target.path);
  }
  return std::strerror(error);
}

std::vector<char*> to_pointers(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const auto& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// The masks of `setup`'s CPUs and NUMA node; an Error when one does not fit a mask.
Status prepare_masks(const ChildSetup& setup, Prepared& prepared) {
  const WorkerSpec& spec = *setup.spec;
  if (!spec.cpus.empty()) {
    auto mask = IdMask::of(spec.cpus, "CPU");
    if (!mask.ok()) return Error{fmt::format("cannot pin {}: {}", worker_name(spec), mask.error().message)};
    prepared.cpu_mask = *mask;
  }
  if (!spec.memory.nodes.empty()) {
    auto mask = IdMask::of(spec.memory.nodes, "NUMA node");
    if (!mask.ok())
      return Error{fmt::format("cannot bind the memory of {}: {}", worker_name(spec), mask.error().message)};
    prepared.node_mask = *mask;
  }
  return ok_status();
}

// The open-file limit a child gets back when this process raised its own
// (for the monitor's kept-open /proc files), so a command runs with the
// limit mptrain was started with; nullopt when it was never raised.
std::optional<rlimit> original_file_limit() {
  const auto soft = soft_open_file_limit_before_raise();
  rlimit limit{};
  if (!soft || ::getrlimit(RLIMIT_NOFILE, &limit) != 0) return std::nullopt;
  limit.rlim_cur = static_cast<rlim_t>(*soft);
  return limit;
}

// In the child: tells the parent that `step` failed with `error`.
void report(int fd, Step step, int error) {
  const Report record{step, error};
  ssize_t n;
  do {
    n = ::write(fd, &record, sizeof record);
  } while (n < 0 && errno == EINTR);
}

[[noreturn]] void fail_child(int fd, Step step, int error = errno) {
  report(fd, step, error);
  ::_exit(127);
}

bool move_fd(int from, int to) {
  if (from < 0) return true;
  if (from == to) return ::fcntl(to, F_SETFD, 0) == 0;
  return ::dup2(from, to) == to;
}

// In the child, before exec or the function: the async-signal-safe setup.
void set_up_child(const ChildSetup& setup, const Prepared& prepared) {
  const int fd = prepared.report_fd;
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) fail_child(fd, Step::death_signal);
  if (::getppid() != prepared.parent) ::_exit(exit_code::of_signal(SIGKILL));  // the parent died before prctl
  // Into the run's cgroup before anything can be started (RunCgroup::create checked that joining works).
  join_cgroup(setup.cgroup_join_fd);
  SignalRelay::reset_in_child();
  if (setup.install_handlers != nullptr) setup.install_handlers();
  SignalRelay::unblock_in_child();
  ::setpgid(0, setup.process_group);  // the parent does it too; either may lose the race harmlessly
  if (!move_fd(setup.streams.in, 0) || !move_fd(setup.streams.out, 1) || !move_fd(setup.streams.err, 2)) {
    fail_child(fd, Step::streams);
  }
  for (int close_fd : setup.close_fds) ::close(close_fd);
  for (int kept : setup.spec->inherit_fds) ::fcntl(kept, F_SETFD, 0);
  // Lowering the soft limit below the hard one cannot fail.
  if (prepared.file_limit) ::setrlimit(RLIMIT_NOFILE, &*prepared.file_limit);
  if (prepared.cpu_mask) {
    if (const int err = set_thread_affinity(*prepared.cpu_mask); err != 0) fail_child(fd, Step::cpu_affinity, err);
  }
  if (prepared.node_mask) {
    const auto& memory = setup.spec->memory;
    if (const int err = set_thread_memory_policy(memory.mode, *prepared.node_mask); err != 0) {
      if (memory.refusal == MemoryRefusal::fail) fail_child(fd, Step::memory_policy, err);
      report(fd, Step::memory_policy, err);
    }
  }
}

[[noreturn]] void run_function(const ChildFunction& function, const WorkerSpec& spec, Prepared& prepared) {
  SignalRelay::close_in_child();
  ::environ = prepared.envp.data();
  ::close(prepared.report_fd);
  int code = 1;
  try {
    code = function(spec);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mptrain: error: rank %d: %s\n", spec.rank, e.what());
  } catch (...) {
    std::fprintf(stderr, "mptrain: error: rank %d: unknown exception\n", spec.rank);
  }
  std::fflush(nullptr);
  ::_exit(code);
}

}  // namespace

Result<std::string> resolve_program(std::string_view name, std::string_view search_path) {
  if (name.empty()) return Error{"no command given after --"};
  int error = 0;
  if (name.find('/') != std::string_view::npos) {
    const std::string path(name);
    if (is_executable_file(path, &error)) return path;
    return Error{not_runnable(name, path, error)};
  }
  std::string found_unusable;
  int unusable_error = 0;
  for (std::string_view dir : split(search_path, ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + std::string(name);
    if (is_executable_file(candidate, &error)) return candidate;
    if (error != ENOENT && error != ENOTDIR && found_unusable.empty()) {
      found_unusable = candidate;
      unusable_error = error;
    }
  }
  if (!found_unusable.empty()) return Error{not_runnable(name, found_unusable, unusable_error)};
  return Error{fmt::format("cannot run '{}': not found in PATH; check the name or give its path", name)};
}

Result<std::string> resolve_in_path(std::string_view name) {
  const char* path = std::getenv("PATH");
  return resolve_program(name, path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
}

Result<StartedChild> start_child(const ChildTarget& target, const ChildSetup& setup) {
  Prepared prepared;
  prepared.parent = ::getpid();
  if (auto status = prepare_masks(setup, prepared); !status.ok()) return status.error();
  prepared.file_limit = original_file_limit();
  prepared.argv = to_pointers(target.argv);
  prepared.envp = to_pointers(setup.environment);
  auto report_pipe = make_pipe(PipeMode::blocking);
  if (!report_pipe.ok()) return report_pipe.error();
  prepared.report_fd = report_pipe->write.get();
  // Every signal stays blocked until the child has reset their handlers, so
  // none of the parent's handlers runs in the child. A child that execs
  // shares the parent's memory until then (vfork: no page tables to copy),
  // which is safe because it only makes system calls on prepared data.
  sigset_t all_signals, previous_mask;
  ::sigfillset(&all_signals);
  ::pthread_sigmask(SIG_SETMASK, &all_signals, &previous_mask);
  const pid_t pid = target.function != nullptr ? ::fork() : ::vfork();
  if (pid == 0) {
    set_up_child(setup, prepared);
    if (target.function != nullptr) run_function(*target.function, *setup.spec, prepared);
    ::execve(target.path.c_str(), prepared.argv.data(), prepared.envp.data());
    fail_child(prepared.report_fd, Step::exec);
  }
  const int fork_error = errno;
  ::pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  if (pid < 0) return errno_error("cannot fork worker", std::to_string(setup.spec->rank), fork_error);
  ::setpgid(pid, setup.process_group == 0 ? pid : setup.process_group);
  return StartedChild{pid, std::move(report_pipe->read)};
}

Status await_start(StartedChild& child, const ChildTarget& target, const WorkerSpec& spec,
                   std::vector<std::string>& warnings) {
  for (;;) {
    Report record{};
    const ssize_t n = ::read(child.report.get(), &record, sizeof record);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot read the start report of pid", std::to_string(child.pid));
    if (n == 0) break;
    const std::string message = fmt::format("{} (pid {}): {}", describe_failure(record.step, target, spec), child.pid,
                                            failure_cause(record.step, record.error, target));
    if (record.step != Step::memory_policy || spec.memory.refusal == MemoryRefusal::fail) return Error{message};
    warnings.push_back(message);
  }
  child.report.reset();
  return ok_status();
}

}  // namespace mptrain::procmgr
