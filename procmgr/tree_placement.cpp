#include "procmgr/tree_placement.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace mptrain::procmgr {

int child_threads(int threads, int children) { return children <= 0 ? threads : std::max(1, threads / children); }

std::vector<CpuSet> child_slices(const CpuSet& cpus, int threads, int children) {
  std::vector<CpuSet> slices;
  if (children <= 0 || cpus.size() == 0) return slices;
  const auto& all = cpus.cpus();
  const int width = std::min(child_threads(threads, children), cpus.size());
  for (int child = 0; child < children; ++child) {
    std::vector<int> slice;
    for (int k = 0; k < width; ++k) slice.push_back(all[static_cast<std::size_t>((child * width + k) % cpus.size())]);
    slices.emplace_back(std::move(slice));
  }
  return slices;
}

std::string slices_text(const std::vector<CpuSet>& slices) {
  std::vector<std::string> parts;
  for (const auto& slice : slices) parts.push_back(slice.to_string());
  return fmt::format("{}", fmt::join(parts, ";"));
}

std::vector<std::string> tree_placement_environment(const TreePlacement& placement) {
  std::vector<std::string> env;
  env.push_back("MPTRAIN_PLACE_CPUS=" + placement.cpus.to_string());
  env.push_back(fmt::format("MPTRAIN_PLACE_POOL={}", placement.threads));
  env.push_back("MPTRAIN_PLACE_TABLE=" + placement.table);
  env.push_back(fmt::format("MPTRAIN_PLACE_LAUNCHER={}", placement.launcher));
  if (placement.program_threads == ProgramThreads::keep) env.emplace_back("MPTRAIN_PLACE_KEEP=1");
  if (placement.slices.empty()) return env;
  env.push_back("MPTRAIN_PLACE_SLICES=" + slices_text(placement.slices));
  env.push_back(fmt::format("MPTRAIN_PLACE_THREADS={}", placement.threads_per_child));
  return env;
}

bool pools_may_exceed_cpus(ProgramThreads program_threads, bool oversubscribed, int threads, int children) {
  return program_threads == ProgramThreads::keep || oversubscribed || children > threads;
}

}  // namespace mptrain::procmgr
