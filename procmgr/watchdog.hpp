// The guard against a supervisor that dies without reaping: PR_SET_PDEATHSIG
// reaches only the workers themselves, so when mptrain is SIGKILLed (or
// crashes) whatever the workers started — a shell script's `sleep`, a
// DataLoader's processes, torchrun's own children — would live on under
// init. A tiny watchdog process ("mptrain-watch" in ps), forked once,
// learns the workers' process group over a socket and kills that whole
// group when the socket closes without a goodbye, and with it everything in
// the run's cgroup (run_cgroup.hpp), where mptrain made one. Without one,
// it kills the descendants that left the group (setsid, setpgid) that the
// supervisor last told it about (watch_escaped); one started since escapes,
// as mptrain-run(1) says. Linux code in watchdog_linux.cpp.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "procmgr/descendants.hpp"
#include "procmgr/run_cgroup.hpp"
#include "util/fd.hpp"
#include "util/result.hpp"

namespace mptrain::procmgr {

// The watchdog process and the socket that keeps it waiting.
class GroupWatchdog {
 public:
  // Forks the watchdog, which also empties and removes the cgroups of
  // `cgroups` that exist then (the run's, planned before it is made:
  // RunCgroup::planned) and removes the folder `remove_dir` with all it
  // holds (empty: none; a temporary folder of the run's) should this
  // process die; an Error naming the call that failed otherwise.
  static Result<GroupWatchdog> start(const std::vector<CgroupFiles>& cgroups, const std::string& remove_dir = {});

  GroupWatchdog(GroupWatchdog&& other) noexcept;
  GroupWatchdog& operator=(GroupWatchdog&&) = delete;
  GroupWatchdog(const GroupWatchdog&) = delete;
  GroupWatchdog& operator=(const GroupWatchdog&) = delete;
  // Says goodbye (the watchdog then exits without killing) and reaps it.
  ~GroupWatchdog();

  // The process group to kill should this process die (0: none any more).
  void watch(pid_t process_group);
  // The processes that left that group, to kill too should this process
  // die (each only if it is still the same process then, and its own
  // process group where it leads one); replaces the previous list. For a
  // run without a cgroup, whose watchdog cannot find them otherwise.
  void watch_escaped(const std::vector<Descendant>& escaped);
  // The watchdog's pid.
  pid_t pid() const { return pid_; }

 private:
  GroupWatchdog(pid_t pid, UniqueFd to_watchdog) : pid_(pid), to_watchdog_(std::move(to_watchdog)) {}

  void send(int kind, pid_t pid, std::uint64_t start);

  pid_t pid_ = 0;
  UniqueFd to_watchdog_;  // write end; the watchdog reads messages from it
};

}  // namespace mptrain::procmgr
