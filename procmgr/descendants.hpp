// The processes below this one: mptrain makes itself the subreaper of its
// descendants (PR_SET_CHILD_SUBREAPER), so a process whose parent dies —
// a daemon's double fork, a shell's background job — is re-parented to
// mptrain instead of init and stays in its process tree until it ends.
// Linux code in descendants_linux.cpp.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "util/result.hpp"

namespace mptrain::procmgr {

// Makes this process the reaper of its orphaned descendants (`on` true) or
// stops it; an Error naming prctl otherwise.
Status set_subreaper(bool on);

// A live process below this one, and what tells it apart from a later
// process given the same pid.
struct Descendant {
  pid_t pid = 0;
  pid_t group = 0;          // its process group
  std::uint64_t start = 0;  // when it started, in clock ticks after boot (/proc/PID/stat field 22)
};

// The live (not zombie) descendants of this process, from /proc/PID/stat,
// leaving out `except` (0: none) and whatever is below it; empty when /proc
// cannot be read.
std::vector<Descendant> live_descendants(pid_t except);

// True when process `pid` is alive and started at `start` (Descendant::start),
// with its process group in `group`. Async-signal-safe, for the watchdog.
bool same_process(pid_t pid, std::uint64_t start, pid_t* group);

}  // namespace mptrain::procmgr
