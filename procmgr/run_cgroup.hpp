// The cgroup of a run: a child cgroup under mptrain's own that every worker
// joins before it runs, so every process the workers start — also one that
// calls setsid or setpgid and one whose parent died — stays in it and can be
// killed: by the supervisor when the run ends, by the watchdog should
// mptrain die. The unified (v2) hierarchy first (cgroup.kill ends it at
// once), else v1's freezer hierarchy; none, quietly, where neither can be
// made (a read-only /sys/fs/cgroup in a container, no permission), and then
// the run relies on the process tree (mptrain is the subreaper of its
// descendants) and the workers' process group. MPTRAIN_RUN_CGROUP=v2, v1 or
// off picks one. Linux code in run_cgroup_linux.cpp.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "util/cgroup.hpp"
#include "util/fd.hpp"
#include "util/result.hpp"

namespace mptrain::procmgr {

// Which hierarchy the run's cgroup is made in.
enum class RunCgroupChoice { automatic, v2, v1, off };

// MPTRAIN_RUN_CGROUP's choice (unset or empty: automatic); an Error naming
// the variable and its accepted values for any other value.
Result<RunCgroupChoice> run_cgroup_choice_from_env();

// The files of a run's cgroup, as paths laid out before a fork (the
// watchdog uses them without allocating).
struct CgroupFiles {
  std::string dir;     // the cgroup's directory
  std::string procs;   // dir/cgroup.procs
  std::string kill;    // dir/cgroup.kill (v2 on Linux 5.14 and later); "" when absent
  std::string freeze;  // v1 dir/freezer.state; "" in v2
};

// A run's cgroup, removed (once empty) on destruction.
class RunCgroup {
 public:
  // Makes the cgroup "mptrain-run-PID-TOKEN" (TOKEN: random, once per process) under its own in the
  // hierarchy `choice` names (automatic: v2, else v1's freezer), and checks
  // that a process can join it; an Error saying why it cannot be made or
  // joined (the last hierarchy tried), or that `choice` is off.
  static Result<RunCgroup> create(RunCgroupChoice choice);
  // The files create(choice) would make, in each hierarchy it may try (none
  // for off), laid out before the cgroup exists: the watchdog starts with
  // them first, so a mptrain killed between making the cgroup and starting
  // its watchdog leaves nothing behind.
  static std::vector<CgroupFiles> planned(RunCgroupChoice choice);

  RunCgroup(RunCgroup&& other) noexcept = default;
  RunCgroup& operator=(RunCgroup&&) = delete;
  ~RunCgroup();

  CgroupVersion version() const { return version_; }
  const CgroupFiles& files() const { return files_; }
  // cgroup.procs open for writing: a child writes "0" to it to join (async-signal-safe).
  int join_fd() const { return join_.get(); }
  // The processes in the cgroup and the cgroups below it now (empty when it cannot be read).
  std::vector<pid_t> members() const;

 private:
  RunCgroup(CgroupVersion version, CgroupFiles files, UniqueFd join)
      : version_(version), files_(std::move(files)), join_(std::move(join)) {}
  // Makes the cgroup in `version`; an Error saying why it cannot be made or joined.
  static Result<RunCgroup> make_in(CgroupVersion version);

  CgroupVersion version_ = CgroupVersion::none;
  CgroupFiles files_;
  UniqueFd join_;  // invalid once moved from
};

// Makes the calling process join the cgroup whose cgroup.procs is open on
// `join_fd` (-1: nothing to do). Async-signal-safe; true on success.
bool join_cgroup(int join_fd);

// SIGKILLs every process in the cgroup of `files` (cgroup.kill where there is
// one; else rounds of freeze, kill, thaw until it is empty, at most about a
// second), then removes the cgroups the job made inside it (deepest first,
// killing what each holds) and it. Nothing happens when it does not exist.
// Async-signal-safe, for the watchdog.
void kill_cgroup_and_remove(const CgroupFiles& files);

}  // namespace mptrain::procmgr
