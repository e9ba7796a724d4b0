#include "util/pinning.hpp"

#include <numaif.h>
#include <sched.h>

#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <utility>

using namespace mptrain;

namespace {

// The CPUs the calling thread may run on.
CpuSet this_thread_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(::sched_getaffinity(0, sizeof set, &set) == 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return CpuSet(std::move(cpus));
}

}  // namespace

TEST_CASE("a mask holds the kernel's largest id and refuses one beyond it", "[util][pinning]") {
  CHECK(IdMask().words()[0] == 0UL);
  auto last = IdMask::of(CpuSet({0, IdMask::capacity - 1}), "CPU");
  REQUIRE(last.ok());
  CHECK(last->words()[0] == 1UL);
  CHECK(last->words()[IdMask::bytes() / sizeof(unsigned long) - 1] == 1UL << (sizeof(unsigned long) * 8 - 1));
  CHECK(IdMask::bytes() * 8 == static_cast<std::size_t>(IdMask::capacity));
  auto beyond = IdMask::of(CpuSet({IdMask::capacity}), "NUMA node");
  REQUIRE_FALSE(beyond.ok());
  CHECK(beyond.error().message == "NUMA node 8192 is beyond the 8192 this program supports");
}

TEST_CASE("a thread's affinity set through a mask shows in sched_getaffinity", "[util][pinning]") {
  const CpuSet all = this_thread_cpus();
  std::thread([&all] {
    auto one = IdMask::of(all.first(1), "CPU");
    REQUIRE(one.ok());
    CHECK(set_thread_affinity(*one) == 0);
    CHECK(this_thread_cpus() == all.first(1));
    CHECK(set_thread_affinity(IdMask()) == EINVAL);  // no CPU at all
  }).join();
  CHECK(this_thread_cpus() == all);
}

// The calling thread's memory policy mode and its first word of nodes.
std::pair<int, unsigned long> this_thread_memory_policy() {
  int mode = -1;
  unsigned long nodes[IdMask::capacity / (sizeof(unsigned long) * 8)] = {};
  if (::get_mempolicy(&mode, nodes, IdMask::capacity, nullptr, 0) != 0) return {-1, 0};
  return {mode, nodes[0]};
}

TEST_CASE("memory bound to, or interleaved over, an online node through a mask", "[util][pinning]") {
  auto nodes = read_online_nodes(FsRoot());
  if (!nodes.ok()) {
    WARN("no NUMA support here (" << nodes.error().message << "): only the refusal of an absent node is checked");
  }
  // set_mempolicy is per thread: keep the policy away from the other tests.
  std::thread([&nodes] {
    if (nodes.ok()) {
      auto first = IdMask::of(nodes->first(1), "NUMA node");
      REQUIRE(first.ok());
      const unsigned long bit = 1UL << nodes->first(1).cpus().front();
      CHECK(set_thread_memory_policy(MemoryMode::bind, *first) == 0);
      CHECK(this_thread_memory_policy() == std::pair<int, unsigned long>(MPOL_BIND, bit));
      CHECK(set_thread_memory_policy(MemoryMode::interleave, *first) == 0);
      CHECK(this_thread_memory_policy() == std::pair<int, unsigned long>(MPOL_INTERLEAVE, bit));
    }
    CHECK(set_thread_memory_policy(MemoryMode::bind, IdMask()) == EINVAL);  // a policy needs a node
    CHECK(set_thread_memory_policy(MemoryMode::interleave, IdMask()) == EINVAL);
  }).join();
}

TEST_CASE("online NUMA nodes are read under the root, and a missing file is an error naming it", "[util][pinning]") {
  auto recorded = read_online_nodes(FsRoot(MPTRAIN_TEST_DATA "/numa-four-nodes"));
  REQUIRE(recorded.ok());
  CHECK(recorded->to_string() == "0-3");
  auto missing = read_online_nodes(FsRoot("/nonexistent"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("/nonexistent/sys/devices/system/node/online") != std::string::npos);
}
