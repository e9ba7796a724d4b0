// Pinning through sched_setaffinity and set_mempolicy. The success paths use
// fixed-size masks on the stack so a child may call them between fork and exec.
#include <numa.h>
#include <numaif.h>
#include <sched.h>

#include <array>
#include <climits>
#include <string>
#include <vector>

#include "affinity/bind.hpp"

namespace mptrain::affinity {

namespace {

// Enough bits for 8192 CPUs (1 KiB), the kernel's largest NR_CPUS default.
constexpr int mask_bits = 8192;
constexpr int word_bits = static_cast<int>(sizeof(unsigned long) * CHAR_BIT);
using Mask = std::array<unsigned long, mask_bits / word_bits>;

// Fills `mask` with `cpus`; false when a CPU does not fit.
bool fill_mask(const CpuSet& cpus, Mask& mask) {
  mask.fill(0);
  for (int cpu : cpus.cpus()) {
    if (cpu >= mask_bits) return false;
    mask[cpu / word_bits] |= 1UL << (cpu % word_bits);
  }
  return true;
}

CpuSet mask_to_set(const unsigned long* words, std::size_t count) {
  std::vector<int> cpus;
  for (std::size_t w = 0; w < count; ++w) {
    for (int bit = 0; bit < word_bits; ++bit) {
      if ((words[w] >> bit) & 1UL) cpus.push_back(static_cast<int>(w) * word_bits + bit);
    }
  }
  return CpuSet(std::move(cpus));
}

Status set_affinity(pid_t pid, const CpuSet& cpus, const char* what) {
  Mask mask;
  int err = cpus.empty() || !fill_mask(cpus, mask) ? EINVAL : 0;
  if (err == 0 && sched_setaffinity(pid, sizeof(mask), reinterpret_cast<const cpu_set_t*>(mask.data())) == 0) {
    return ok_status();
  }
  if (err == 0) err = errno;
  return errno_error(std::string(what) + " to CPUs", cpus.to_string(), err);
}

}  // namespace

Status bind_process(pid_t pid, const CpuSet& cpus) { return set_affinity(pid, cpus, "sched_setaffinity"); }

// sched_setaffinity with pid 0 changes the calling thread only.
Status bind_this_thread(const CpuSet& cpus) { return set_affinity(0, cpus, "sched_setaffinity (this thread)"); }

Status bind_memory_to_node(int node) {
  if (node < 0 || numa_available() < 0 || numa_num_configured_nodes() <= 1) return ok_status();
  if (node >= mask_bits) return errno_error("set_mempolicy for NUMA node", std::to_string(node), EINVAL);
  Mask nodes{};
  nodes[node / word_bits] = 1UL << (node % word_bits);
  if (set_mempolicy(MPOL_BIND, nodes.data(), mask_bits) != 0) {
    const int err = errno;
    return errno_error("set_mempolicy for NUMA node", std::to_string(node), err);
  }
  return ok_status();
}

Result<CpuSet> current_affinity(pid_t pid) {
  for (std::size_t words = Mask().size();; words *= 2) {
    std::vector<unsigned long> mask(words, 0);
    if (sched_getaffinity(pid, words * sizeof(unsigned long), reinterpret_cast<cpu_set_t*>(mask.data())) == 0) {
      return mask_to_set(mask.data(), words);
    }
    const int err = errno;
    if (err != EINVAL || words > (1u << 16)) return errno_error("sched_getaffinity", "", err);
  }
}

}  // namespace mptrain::affinity
