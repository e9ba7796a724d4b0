// The processes below this one: mptrain makes itself the subreaper of its
// descendants (PR_SET_CHILD_SUBREAPER), so a process whose parent dies —
// a daemon's double fork, a shell's background job — is re-parented to
// mptrain instead of init and stays in its process tree until it ends.
// Linux code in descendants_linux.cpp.
#pragma once

#include <sys/types.h>

#include <vector>

#include "util/result.hpp"

namespace mptrain::procmgr {

// Makes this process the reaper of its orphaned descendants (`on` true) or
// stops it; an Error naming prctl otherwise.
Status set_subreaper(bool on);

// The live (not zombie) descendants of this process, from /proc/PID/stat,
// leaving out `except` (0: none) and whatever is below it; empty when /proc
// cannot be read.
std::vector<pid_t> live_descendants(pid_t except);

}  // namespace mptrain::procmgr
