// The group watchdog (see watchdog.hpp): a forked process that waits on a
// socket for the workers' process group and kills it when the socket closes
// without a goodbye.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <utility>

#include "procmgr/signals.hpp"
#include "procmgr/watchdog.hpp"

namespace mptrain::procmgr {

namespace {

// What the supervisor sends: the workers' group, the start of a new list
// of processes that left it, one of them, or goodbye when it ends normally.
enum Kind : std::int32_t { group_id = 1, clear_escaped = 2, add_escaped = 3, goodbye = 4 };

struct Message {
  std::int32_t kind = 0;
  pid_t pid = 0;
  std::uint64_t start = 0;
};

// The escaped processes the watchdog kills, kept in its own memory (no allocation after fork).
struct Escaped {
  pid_t pid;
  std::uint64_t start;
};
constexpr int max_escaped = 4096;
Escaped escaped_list[max_escaped];

// Kills each escaped process that is still the one recorded, and the
// process group it leads (its children since the last list).
void kill_escaped(int count) {
  for (int i = 0; i < count; ++i) {
    pid_t group = 0;
    if (!same_process(escaped_list[i].pid, escaped_list[i].start, &group)) continue;
    if (group == escaped_list[i].pid) ::kill(-group, SIGKILL);
    ::kill(escaped_list[i].pid, SIGKILL);
  }
}

// Closes every descriptor but `keep` (the watchdog must not hold the
// supervisor's output pipes or terminal open).
void close_all_but(int keep) {
  if (keep > 0) ::close_range(0, static_cast<unsigned>(keep - 1), 0);
  ::close_range(static_cast<unsigned>(keep + 1), UINT_MAX, 0);
}

// The watchdog itself: only async-signal-safe calls, as after any fork of a
// process that may have other threads.
[[noreturn]] void run_watchdog(int socket, const std::vector<CgroupFiles>& cgroups, char* const* remove_argv) {
  ::prctl(PR_SET_NAME, "mptrain-watch");  // how ps and pgrep show it (at most 15 characters)
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  // The terminal's and the user's signals are for the supervisor, which forwards them; the watchdog outlives it.
  for (int signal : stop_signals()) ::sigaction(signal, &ignore, nullptr);
  for (int signal : {SIGUSR1, SIGUSR2, SIGQUIT, SIGPIPE}) ::sigaction(signal, &ignore, nullptr);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  ::sigaction(SIGCHLD, &default_action, nullptr);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  close_all_but(socket);
  pid_t group = 0;
  int escaped = 0;
  for (;;) {
    Message message;
    const ssize_t n = ::recv(socket, &message, sizeof message, MSG_WAITALL);
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof message)) break;  // EOF or error: the supervisor is gone
    if (message.kind == goodbye) ::_exit(0);
    if (message.kind == group_id) group = message.pid;
    if (message.kind == clear_escaped) escaped = 0;
    if (message.kind == add_escaped && escaped < max_escaped) escaped_list[escaped++] = {message.pid, message.start};
  }
  if (group > 0) ::kill(-group, SIGKILL);
  kill_escaped(escaped);
  for (const auto& cgroup : cgroups) kill_cgroup_and_remove(cgroup);
  // The run's temporary folder: rm(1) in place of the watchdog (exec is async-signal-safe; a walk is not).
  if (remove_argv != nullptr) {
    char* const no_environment[] = {nullptr};
    ::execve("/bin/rm", remove_argv, no_environment);
    ::execve("/usr/bin/rm", remove_argv, no_environment);
  }
  ::_exit(0);
}

}  // namespace

Result<GroupWatchdog> GroupWatchdog::start(const std::vector<CgroupFiles>& cgroups, const std::string& remove_dir) {
  // rm's argv, laid out before fork: the child only reads it.
  std::string directory = remove_dir;
  char rm_name[] = "rm";
  char rm_flags[] = "-rf";
  char rm_end[] = "--";
  char* remove_argv[] = {rm_name, rm_flags, rm_end, directory.data(), nullptr};
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) < 0) {
    return errno_error("cannot create the watchdog's socket", "");
  }
  UniqueFd ours(ends[0]);
  UniqueFd theirs(ends[1]);
  // No handler of the supervisor's may run in the child before it resets them.
  sigset_t all_signals, previous_mask;
  ::sigfillset(&all_signals);
  ::pthread_sigmask(SIG_SETMASK, &all_signals, &previous_mask);
  const pid_t pid = ::fork();
  if (pid == 0) run_watchdog(theirs.get(), cgroups, remove_dir.empty() ? nullptr : remove_argv);
  const int fork_error = errno;
  ::pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  if (pid < 0) return errno_error("cannot fork the watchdog", "", fork_error);
  return GroupWatchdog(pid, std::move(ours));
}

GroupWatchdog::GroupWatchdog(GroupWatchdog&& other) noexcept
    : pid_(std::exchange(other.pid_, 0)), to_watchdog_(std::move(other.to_watchdog_)) {}

GroupWatchdog::~GroupWatchdog() {
  if (pid_ <= 0) return;
  send(goodbye, 0, 0);
  to_watchdog_.reset();
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

void GroupWatchdog::send(int kind, pid_t pid, std::uint64_t start) {
  const Message message{kind, pid, start};
  // MSG_NOSIGNAL: a watchdog that was killed must not take the supervisor down with SIGPIPE.
  ssize_t n;
  do {
    n = ::send(to_watchdog_.get(), &message, sizeof message, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
}

void GroupWatchdog::watch(pid_t process_group) { send(group_id, process_group, 0); }

void GroupWatchdog::watch_escaped(const std::vector<Descendant>& escaped) {
  send(clear_escaped, 0, 0);
  for (const auto& process : escaped) send(add_escaped, process.pid, process.start);
}

}  // namespace mptrain::procmgr
