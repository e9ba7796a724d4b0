// Pinning processes, threads and memory. Their success paths do not
// allocate, so a child may call them between fork and exec.
#pragma once

#include <sys/types.h>

#include "util/cpu_set.hpp"
#include "util/result.hpp"

namespace mptrain::affinity {

// Restricts process (or thread id) `pid` (0: the caller) to `cpus`; an Error with errno otherwise.
Status bind_process(pid_t pid, const CpuSet& cpus);
// Restricts the calling thread to `cpus`; an Error with errno otherwise.
Status bind_this_thread(const CpuSet& cpus);
// Makes the calling process allocate memory from NUMA node `node` only
// (no-op success on a single-node machine or for `node` < 0).
Status bind_memory_to_node(int node);
// The CPUs process (or thread id) `pid` (0: the caller) may run on; an Error with errno otherwise.
Result<CpuSet> current_affinity(pid_t pid);

}  // namespace mptrain::affinity
