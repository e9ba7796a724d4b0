#include "procmgr/tree_placement.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <optional>

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
  env.push_back(PLACE_VAR_CPUS "=" + placement.cpus.to_string());
  env.push_back(fmt::format(PLACE_VAR_POOL "={}", placement.threads));
  env.push_back(PLACE_VAR_TABLE "=" + placement.table);
  env.push_back(fmt::format(PLACE_VAR_LAUNCHER "={}", placement.launcher));
  if (placement.program_threads == ProgramThreads::keep) env.emplace_back(PLACE_VAR_KEEP "=1");
  if (placement.slices.empty()) return env;
  env.push_back(PLACE_VAR_SLICES "=" + slices_text(placement.slices));
  env.push_back(fmt::format(PLACE_VAR_THREADS "={}", placement.threads_per_child));
  return env;
}

namespace {

// The little-endian unsigned number of `size` bytes at `offset` of `bytes`; nullopt past its end.
std::optional<std::uint64_t> read_le(std::string_view bytes, std::uint64_t offset, int size) {
  if (offset + static_cast<std::uint64_t>(size) > bytes.size()) return std::nullopt;
  std::uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[offset + i]);
  return value;
}

}  // namespace

bool secure_exec(unsigned mode, unsigned owner, unsigned group, unsigned uid, unsigned gid) {
  constexpr unsigned set_uid = 04000, set_gid = 02000, group_execute = 0010;
  if ((mode & set_uid) != 0 && owner != uid) return true;
  return (mode & set_gid) != 0 && (mode & group_execute) != 0 && group != gid;
}

PreloadReach preload_reach(std::string_view head, bool secure) {
  if (secure) return PreloadReach::set_id;
  if (head.size() < 20 ||
      head.substr(0, 4) !=
          "\x7f"
          "ELF" ||
      head[5] != 1)
    return PreloadReach::reaches;
  const bool wide = head[4] == 2;  // ELFCLASS64; ELFCLASS32 otherwise
  const auto phoff = read_le(head, wide ? 32 : 28, wide ? 8 : 4);
  const auto phentsize = read_le(head, wide ? 54 : 42, 2);
  const auto phnum = read_le(head, wide ? 56 : 44, 2);
  if (!phoff || !phentsize || !phnum || *phentsize < 4) return PreloadReach::reaches;
  constexpr std::uint64_t pt_interp = 3;
  for (std::uint64_t i = 0; i < *phnum; ++i) {
    const auto type = read_le(head, *phoff + i * *phentsize, 4);
    if (!type) return PreloadReach::reaches;  // the headers lie past what was read: cannot tell
    if (*type == pt_interp) return PreloadReach::reaches;
  }
  return PreloadReach::static_binary;
}

bool pools_may_exceed_cpus(ProgramThreads program_threads, bool oversubscribed, int threads, int children) {
  return program_threads == ProgramThreads::keep || oversubscribed || children > threads;
}

}  // namespace mptrain::procmgr
