// Masks applied through sched_setaffinity and set_mempolicy (see pinning.hpp).
#include <numaif.h>
#include <sched.h>

#include <cerrno>
#include <string>

#include "util/pinning.hpp"

namespace mptrain {

Result<IdMask> IdMask::of(const CpuSet& ids, std::string_view what) {
  IdMask mask;
  for (int id : ids.cpus()) {
    if (id < 0 || id >= capacity) {
      return Error{std::string(what) + " " + std::to_string(id) + " is beyond the " + std::to_string(capacity) +
                   " this program supports"};
    }
    mask.words_[static_cast<std::size_t>(id / word_bits)] |= 1UL << (id % word_bits);
  }
  return mask;
}

int set_thread_affinity(const IdMask& cpus) noexcept {
  // pid 0: the calling thread only; the kernel ignores mask bits beyond its own CPU count.
  if (::sched_setaffinity(0, IdMask::bytes(), reinterpret_cast<const cpu_set_t*>(cpus.words())) == 0) return 0;
  return errno;
}

int set_task_affinity(pid_t tid, const IdMask& cpus) noexcept {
  if (::sched_setaffinity(tid, IdMask::bytes(), reinterpret_cast<const cpu_set_t*>(cpus.words())) == 0) return 0;
  return errno;
}

std::string_view to_string(MemoryMode mode) { return mode == MemoryMode::bind ? "membind" : "interleave"; }

int set_thread_memory_policy(MemoryMode mode, const IdMask& nodes) noexcept {
  const int policy = mode == MemoryMode::bind ? MPOL_BIND : MPOL_INTERLEAVE;
  // The kernel reads maxnode - 1 bits: one more than the mask holds.
  if (::set_mempolicy(policy, nodes.words(), IdMask::capacity + 1) == 0) return 0;
  return errno;
}

Result<CpuSet> read_online_nodes(const FsRoot& root) {
  const std::string_view file = "/sys/devices/system/node/online";
  auto text = root.read(file);
  if (!text.ok()) return text.error();
  auto nodes = CpuSet::parse(*text);
  if (!nodes.ok()) return Error{root.path(file).string() + ": " + nodes.error().message};
  return nodes;
}

}  // namespace mptrain
