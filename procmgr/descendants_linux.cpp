// The processes below this one (see descendants.hpp).
#include <sys/prctl.h>
#include <unistd.h>

#include <map>
#include <string>

#include "procmgr/descendants.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace mptrain::procmgr {

namespace {

// A process's parent and state, from its /proc/PID/stat.
struct Parentage {
  pid_t parent = 0;
  char state = '?';
};

// The parent and state in /proc/PID/stat text `stat`; nullopt when malformed.
std::optional<Parentage> parse_parentage(std::string_view stat) {
  // "PID (COMM) STATE PPID …": the command may hold spaces and parentheses.
  const auto close = stat.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  const auto words = split_words(stat.substr(close + 1));
  if (words.size() < 2 || words[0].empty()) return std::nullopt;
  const auto parent = parse_u64(words[1]);
  if (!parent) return std::nullopt;
  return Parentage{static_cast<pid_t>(*parent), words[0][0]};
}

}  // namespace

Status set_subreaper(bool on) {
  if (::prctl(PR_SET_CHILD_SUBREAPER, on ? 1UL : 0UL, 0UL, 0UL, 0UL) < 0) {
    return errno_error("cannot make mptrain the reaper of its descendants (prctl PR_SET_CHILD_SUBREAPER)", "");
  }
  return ok_status();
}

std::vector<pid_t> live_descendants(pid_t except) {
  const FsRoot root;
  auto names = root.list("/proc");
  if (!names.ok()) return {};
  std::multimap<pid_t, std::pair<pid_t, char>> children;  // parent -> (child, state)
  for (const auto& name : *names) {
    const auto pid = parse_u64(name);
    if (!pid || *pid == 0) continue;
    auto stat = root.read("/proc/" + name + "/stat");
    if (!stat.ok()) continue;  // gone meanwhile
    const auto parentage = parse_parentage(*stat);
    if (parentage) children.emplace(parentage->parent, std::make_pair(static_cast<pid_t>(*pid), parentage->state));
  }
  std::vector<pid_t> found;
  std::vector<pid_t> to_visit{::getpid()};
  while (!to_visit.empty()) {
    const pid_t parent = to_visit.back();
    to_visit.pop_back();
    const auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      const auto [child, state] = it->second;
      if (child == except) continue;
      to_visit.push_back(child);
      if (state != 'Z' && state != 'X') found.push_back(child);
    }
  }
  return found;
}

}  // namespace mptrain::procmgr
