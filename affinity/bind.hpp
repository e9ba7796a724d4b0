// Pinning training threads and reading affinity masks. Masks come from
// util/pinning.hpp, the one place that builds them (procmgr/ pins launched
// workers with the same masks).
#pragma once

#include <sys/types.h>

#include "util/cpu_set.hpp"
#include "util/result.hpp"

namespace mptrain::affinity {

// Restricts the calling thread to `cpus`; an Error with errno otherwise (no CPU, or one the kernel refuses).
Status bind_this_thread(const CpuSet& cpus);
// The CPUs process (or thread id) `pid` (0: the caller) may run on; an Error with errno otherwise.
Result<CpuSet> current_affinity(pid_t pid);

}  // namespace mptrain::affinity
