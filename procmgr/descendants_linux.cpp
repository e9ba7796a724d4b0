// The processes below this one (see descendants.hpp).
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "procmgr/descendants.hpp"
#include "util/fs.hpp"
#include "util/task_stat.hpp"
#include "util/text.hpp"

namespace mptrain::procmgr {

namespace {

// Reads field `index` (1-based, counted after the command's closing
// parenthesis as field 3) of the stat text in `text`; false when missing.
// Not util/task_stat.hpp's reader: same_process runs where nothing may allocate (async-signal-safe).
bool stat_field(const char* text, ssize_t length, int index, std::uint64_t* value) {
  ssize_t at = length - 1;
  while (at >= 0 && text[at] != ')') --at;
  if (at < 0) return false;
  int field = 2;
  ++at;
  while (at < length) {
    while (at < length && text[at] == ' ') ++at;
    if (at >= length) return false;
    ++field;
    if (field == index) {
      std::uint64_t number = 0;
      bool any = false;
      for (; at < length && text[at] >= '0' && text[at] <= '9'; ++at) {
        number = number * 10 + static_cast<std::uint64_t>(text[at] - '0');
        any = true;
      }
      *value = number;
      return any;
    }
    while (at < length && text[at] != ' ') ++at;
  }
  return false;
}

}  // namespace

Status set_subreaper(bool on) {
  if (::prctl(PR_SET_CHILD_SUBREAPER, on ? 1UL : 0UL, 0UL, 0UL, 0UL) < 0) {
    return errno_error("cannot make mptrain the reaper of its descendants (prctl PR_SET_CHILD_SUBREAPER)", "");
  }
  return ok_status();
}

namespace {

// The children of `pid` from the kernel's lists (/proc/PID/task/TID/children,
// CONFIG_PROC_CHILDREN), in task order; nullopt when the kernel has none.
std::optional<std::vector<pid_t>> children_of(const FsRoot& root, pid_t pid) {
  const std::string base = "/proc/" + std::to_string(pid) + "/task";
  auto tasks = root.list(base);
  if (!tasks.ok()) return std::vector<pid_t>{};  // gone meanwhile
  std::vector<pid_t> children;
  for (const auto& task : *tasks) {
    auto text = root.read(base + "/" + task + "/children");
    if (!text.ok()) {
      std::error_code error;
      const bool task_lives = std::filesystem::exists(root.path(base + "/" + task), error);
      if (text.error().code == ENOENT && task_lives) return std::nullopt;  // a kernel without the lists
      continue;                                                            // the task ended meanwhile
    }
    for (const auto word : split_words(*text)) {
      if (const auto child = parse_u64(word)) children.push_back(static_cast<pid_t>(*child));
    }
  }
  return children;
}

// The live descendants by a walk from this process down the kernel's
// children lists: a few files for a few processes, not all of /proc.
std::optional<std::vector<Descendant>> walk_descendants(const FsRoot& root, pid_t except) {
  std::vector<Descendant> found;
  std::vector<pid_t> to_visit{::getpid()};
  while (!to_visit.empty()) {
    const pid_t parent = to_visit.back();
    to_visit.pop_back();
    const auto children = children_of(root, parent);
    if (!children) return std::nullopt;
    for (const pid_t child : *children) {
      if (child == except) continue;
      const auto stat = read_process_stat(root, child);
      if (!stat.ok()) continue;  // gone meanwhile
      to_visit.push_back(child);
      if (stat->state != 'Z' && stat->state != 'X') found.push_back({child, stat->pgrp, stat->start_ticks});
    }
  }
  return found;
}

// The same from every process's parent in /proc (kernels without children lists).
std::vector<Descendant> scan_descendants(const FsRoot& root, pid_t except) {
  auto names = root.list("/proc");
  if (!names.ok()) return {};
  std::multimap<pid_t, std::pair<Descendant, char>> children;  // by parent: the child and its state
  for (const auto& name : *names) {
    const auto pid = parse_u64(name);
    if (!pid || *pid == 0) continue;
    const auto stat = read_process_stat(root, static_cast<pid_t>(*pid));
    if (!stat.ok()) continue;  // gone meanwhile
    children.emplace(stat->ppid,
                     std::make_pair(Descendant{static_cast<pid_t>(*pid), stat->pgrp, stat->start_ticks}, stat->state));
  }
  std::vector<Descendant> found;
  std::vector<pid_t> to_visit{::getpid()};
  while (!to_visit.empty()) {
    const pid_t parent = to_visit.back();
    to_visit.pop_back();
    const auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      const auto& [child, state] = it->second;
      if (child.pid == except) continue;
      to_visit.push_back(child.pid);
      if (state != 'Z' && state != 'X') found.push_back(child);
    }
  }
  return found;
}

}  // namespace

std::vector<Descendant> live_descendants(pid_t except) {
  const FsRoot root;
  if (auto walked = walk_descendants(root, except)) return std::move(*walked);
  return scan_descendants(root, except);
}

bool same_process(pid_t pid, std::uint64_t start, pid_t* group) {
  // "/proc/" + the pid's digits + "/stat", without allocating.
  char path[48] = "/proc/";
  char digits[16];
  int count = 0;
  for (auto rest = static_cast<unsigned long>(pid); rest > 0 && count < 15; rest /= 10) {
    digits[count++] = static_cast<char>('0' + rest % 10);
  }
  int at = 6;
  while (count > 0) path[at++] = digits[--count];
  const char tail[] = "/stat";
  for (char c : tail) path[at++] = c;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[1024];
  ssize_t length;
  do {
    length = ::read(fd, text, sizeof text);
  } while (length < 0 && errno == EINTR);
  ::close(fd);
  std::uint64_t started = 0;
  std::uint64_t state_group = 0;
  if (length <= 0 || !stat_field(text, length, 22, &started) || started != start) return false;
  if (!stat_field(text, length, 5, &state_group)) return false;
  *group = static_cast<pid_t>(state_group);
  return true;
}

}  // namespace mptrain::procmgr
