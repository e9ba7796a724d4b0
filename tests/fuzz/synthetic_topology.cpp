// Fuzz target: synthetic topology descriptions (--topology-synthetic),
// bounded before hwloc sees them.
#include <cstdint>
#include <string>

#include "affinity/topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto topology = mptrain::affinity::load_synthetic_topology(text);
  if (topology.ok() && static_cast<long>(topology->pus.size()) > mptrain::affinity::max_synthetic_pus) {
    __builtin_trap();
  }
  return 0;
}
