// The CPUs a benchmark driver may run on: those of this process's affinity
// mask (what taskset or a cgroup left it), in order.
#pragma once

#include <fmt/core.h>

#include <cstdlib>

#include "affinity/bind.hpp"

namespace mptrain::bench {

// This process's usable CPUs; when the mask cannot be read (or is empty),
// says so as `program` on stderr and exits with 1.
inline CpuSet usable_cpus_or_exit(const char* program) {
  const auto mask = affinity::current_affinity(0);
  if (!mask.ok() || mask->empty()) {
    fmt::print(stderr, "{}: cannot read this process's CPU affinity\n", program);
    std::exit(1);
  }
  return *mask;
}

}  // namespace mptrain::bench
