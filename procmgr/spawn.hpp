// Starting one child process: everything it needs is prepared in the parent,
// so between fork and exec the child only makes async-signal-safe calls
// (no allocation, no locks). Used by group.cpp; Linux code in spawn_linux.cpp.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "procmgr/group.hpp"
#include "util/fd.hpp"
#include "util/result.hpp"

namespace mptrain::procmgr {

// What a child runs: an executable with its argv, or a function.
struct ChildTarget {
  std::string path;               // resolved executable; empty when `function` is set
  std::vector<std::string> argv;  // argv[0] as the user typed it
  const ChildFunction* function = nullptr;
};

// Descriptors the child puts on stdin, stdout and stderr (-1: keep the parent's).
struct ChildStreams {
  int in = -1;
  int out = -1;
  int err = -1;
};

// How one child is set up.
struct ChildSetup {
  const WorkerSpec* spec = nullptr;
  std::vector<std::string> environment;  // the child's whole environment, "NAME=value"
  ChildStreams streams;
  pid_t process_group = 0;     // 0: the child leads a new process group
  int cgroup_join_fd = -1;     // the run's cgroup.procs, joined before anything else (-1: none)
  std::vector<int> close_fds;  // closed in the child (a function child keeps all others)
  // A function child's own handlers, installed while every signal is still
  // blocked (GroupOptions::worker_signals); nullptr: none.
  void (*install_handlers)() = nullptr;
};

// A forked child and the read end of its start report (EOF once it runs).
struct StartedChild {
  pid_t pid = 0;
  UniqueFd report;
};

// The executable `name` runs: `name` itself when it contains '/', else the
// first executable file of that name in the directories of `search_path`
// (PATH). Returns an Error "cannot run 'NAME': …" saying why otherwise (a
// shell would exit 127 or 126 here; mptrain's contract makes it exit 1).
Result<std::string> resolve_program(std::string_view name, std::string_view search_path);
// resolve_program with this process's PATH (a shell's default when PATH is unset).
Result<std::string> resolve_in_path(std::string_view name);

// Forks a child set up per `setup` (death signal, process group, streams,
// CPU and memory binding, environment) that execs or calls `target`.
// Returns an Error when fork fails or the setup cannot be prepared.
Result<StartedChild> start_child(const ChildTarget& target, const ChildSetup& setup);

// Waits until `child` has exec'd (or called its function). Returns an Error
// naming the step that failed in the child (the child then exits 127);
// non-fatal problems (memory binding refused) are appended to `warnings`.
Status await_start(StartedChild& child, const ChildTarget& target, const WorkerSpec& spec,
                   std::vector<std::string>& warnings);

}  // namespace mptrain::procmgr
