// CPU and NUMA-node masks for the kernel's affinity and memory-policy
// calls. A mask is built (validated, filled) before it is applied; applying
// it is one system call on the mask's own fixed-size storage, with no
// allocation and no lock, so a forked child may apply masks between fork
// and exec. The one place that turns CPU or node sets into kernel masks:
// affinity/ pins training threads with it, procmgr/ pins launched workers.
// Linux code in pinning_linux.cpp.
#pragma once

#include <sys/types.h>

#include <array>
#include <climits>
#include <cstddef>
#include <string_view>

#include "util/cpu_set.hpp"
#include "util/fs.hpp"
#include "util/result.hpp"

namespace mptrain {

// A fixed-size bit mask of CPU or NUMA-node ids, as the kernel takes them.
class IdMask {
 public:
  // Every CPU (and NUMA node) number Linux supports fits: max_cpus ids (1 KiB).
  static constexpr int capacity = max_cpus;

  IdMask() = default;
  // The mask of `ids`; an Error naming the `what` ("CPU", "NUMA node") that does not fit otherwise.
  static Result<IdMask> of(const CpuSet& ids, std::string_view what);

  // The words the kernel reads, and their size in bytes.
  const unsigned long* words() const { return words_.data(); }
  static constexpr std::size_t bytes() { return sizeof(Words); }

 private:
  static constexpr int word_bits = static_cast<int>(sizeof(unsigned long) * CHAR_BIT);
  using Words = std::array<unsigned long, capacity / word_bits>;
  Words words_{};
};

// Restricts the calling thread (a new process inherits it) to the CPUs of
// `cpus`. Returns 0, or the errno of sched_setaffinity; async-signal-safe.
int set_thread_affinity(const IdMask& cpus) noexcept;
// Restricts thread `tid` (of any process this one may change) to the CPUs
// of `cpus`. Returns 0, or the errno of sched_setaffinity (ESRCH: it has gone).
int set_task_affinity(pid_t tid, const IdMask& cpus) noexcept;
// How the NUMA nodes of a memory policy are used, as numactl names them.
enum class MemoryMode {
  bind,        // allocate only from these nodes (MPOL_BIND, numactl --membind)
  interleave,  // spread pages round-robin over these nodes (MPOL_INTERLEAVE, numactl --interleave)
};

// "membind" or "interleave".
std::string_view to_string(MemoryMode mode);

// Sets the calling thread's memory policy (a new process inherits it) to
// `mode` over the NUMA nodes of `nodes`. Returns 0, or the errno of
// set_mempolicy; async-signal-safe.
int set_thread_memory_policy(MemoryMode mode, const IdMask& nodes) noexcept;

// The online NUMA nodes (/sys/devices/system/node/online under `root`); an
// Error naming the file when it cannot be read or parsed (kernels without
// NUMA support have no such file).
Result<CpuSet> read_online_nodes(const FsRoot& root);

}  // namespace mptrain
