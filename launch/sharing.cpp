#include "launch/sharing.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "util/text.hpp"

namespace mptrain::launch {

affinity::Machine free_part(affinity::Machine machine, const std::vector<RunRecord>& others,
                            std::vector<std::string>& notes) {
  CpuSet held;
  std::vector<std::string> runs;
  for (const auto& run : others) {
    const auto mine = run.cpus.intersect(machine.usable.cpus);
    if (mine.empty()) continue;
    held = held.unite(mine);
    auto command = printable(run.command);
    if (command.size() > 60) command = command.substr(0, 57) + "...";
    runs.push_back(fmt::format("pid {} on {}: {}", run.pid, mine.to_short_string(), command));
  }
  if (held.empty()) return machine;
  const auto free = machine.usable.cpus.minus(held);
  const auto listed = fmt::format("{}", fmt::join(runs, "; "));
  if (free.empty()) {
    notes.push_back(fmt::format("other mptrain runs hold every usable CPU ({}): this run shares them", listed));
    return machine;
  }
  notes.push_back(fmt::format("other mptrain runs hold CPUs {} ({}); planned on the free CPUs {}",
                              held.to_short_string(), listed, free.to_short_string()));
  machine.usable.count = std::min(machine.usable.count, free.size());
  machine.usable.cpus = free;
  return machine;
}

}  // namespace mptrain::launch
