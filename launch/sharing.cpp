#include "launch/sharing.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "util/text.hpp"

namespace mptrain::launch {

namespace {

// A run's place in the queue: its arrival, then its pid.
bool before(const RunRecord& a, const RunRecord& b) { return std::tie(a.arrived, a.pid) < std::tie(b.arrived, b.pid); }

// How many runs still planning arrived with `self` (itself included): the
// runs whose arrivals chain to its own with gaps of at most `window`.
int planning_mates(const std::vector<RunRecord>& others, const RunRecord& self, std::chrono::nanoseconds window) {
  std::vector<const RunRecord*> arrivals{&self};
  for (const auto& run : others) {
    if (run.state != RunState::waiting) arrivals.push_back(&run);
  }
  std::sort(arrivals.begin(), arrivals.end(), [](const auto* a, const auto* b) { return before(*a, *b); });
  const auto at = std::find(arrivals.begin(), arrivals.end(), &self) - arrivals.begin();
  const auto gap = [&](std::ptrdiff_t i) { return arrivals[i + 1]->arrived - arrivals[i]->arrived; };
  std::ptrdiff_t first = at;
  std::ptrdiff_t last = at;
  while (first > 0 && gap(first - 1) <= window.count()) --first;
  while (last + 1 < static_cast<std::ptrdiff_t>(arrivals.size()) && gap(last) <= window.count()) ++last;
  int mates = 0;
  for (auto i = first; i <= last; ++i) mates += arrivals[i] == &self || arrivals[i]->state == RunState::planning;
  return mates;
}

// `cpus` without those the running `others` hold, and how many of them hold each usable CPU.
CpuSet held_by(const std::vector<RunRecord>& others, const CpuSet& usable, std::map<int, int>& holders) {
  CpuSet held;
  for (const auto& run : others) {
    if (run.state != RunState::running) continue;
    const auto mine = run.cpus.intersect(usable);
    held = held.unite(mine);
    for (int cpu : mine.cpus()) ++holders[cpu];
  }
  return held;
}

// The first `count` CPUs of `cpus`, in their order.
CpuSet first_of(const CpuSet& cpus, int count) {
  auto list = cpus.cpus();
  list.resize(std::min<std::size_t>(list.size(), static_cast<std::size_t>(std::max(0, count))));
  return CpuSet(list);
}

// `count` CPUs of `usable` that the fewest runs hold (`holders`), the later CPUs first among equals.
CpuSet least_held(const CpuSet& usable, const std::map<int, int>& holders, int count) {
  auto list = usable.cpus();
  std::reverse(list.begin(), list.end());
  const auto held = [&](int cpu) {
    const auto it = holders.find(cpu);
    return it == holders.end() ? 0 : it->second;
  };
  std::stable_sort(list.begin(), list.end(), [&](int a, int b) { return held(a) < held(b); });
  list.resize(std::min<std::size_t>(list.size(), static_cast<std::size_t>(std::max(1, count))));
  return CpuSet(list);
}

// The runs of `others` on `cpus`, "pid 12 on 0-1: python3 train.py", joined by "; ".
std::string runs_on(const std::vector<RunRecord>& others, const CpuSet& cpus) {
  std::vector<std::string> runs;
  for (const auto& run : others) {
    const auto mine = run.cpus.intersect(cpus);
    if (run.state != RunState::running || mine.empty()) continue;
    auto command = printable(run.command);
    if (command.size() > 60) command = command.substr(0, 57) + "...";
    runs.push_back(fmt::format("pid {} on {}: {}", run.pid, mine.to_short_string(), command));
  }
  return fmt::format("{}", fmt::join(runs, "; "));
}

}  // namespace

Portion portion(affinity::Machine machine, const std::vector<RunRecord>& others, const RunRecord& self,
                std::chrono::nanoseconds window) {
  Portion out;
  const auto usable = machine.usable.cpus;
  const int n = machine.usable.count;
  std::map<int, int> holders;
  const auto held = held_by(others, usable, holders);
  int reserved = 0;  // what the runs queued before this one need
  for (const auto& run : others) {
    if (run.state == RunState::waiting && before(run, self)) reserved += run.need;
  }
  const int mates = planning_mates(others, self, window);
  out.holders = runs_on(others, usable);
  if (held.empty() && reserved == 0 && mates == 1) {
    out.machine = std::move(machine);
    return out;
  }
  const auto free = usable.minus(held);
  const bool quota = n < static_cast<int>(usable.size());  // unpinned: N below the CPUs
  const int free_count = std::min(n, static_cast<int>(free.size()));
  const int available = free_count - reserved;
  const int count = self.elastic ? std::max(self.need, available / mates) : self.need;
  const auto others_note =
      held.empty() ? std::string()
                   : fmt::format("other mptrain runs hold CPUs {} ({}); ", held.to_short_string(), out.holders);
  if (count <= available) {
    out.machine = std::move(machine);
    out.machine.usable.cpus = quota ? free : first_of(free, count);
    out.machine.usable.count = count;
    out.shares_cpus = mates > available;  // some of the runs started with it will share CPUs
    const auto mates_note =
        mates > 1 ? fmt::format("{} runs started together share the free CPUs {}; ", mates, free.to_short_string())
                  : std::string();
    const auto queued_note =
        reserved > 0 ? fmt::format("{} CPUs kept for the runs queued before it; ", reserved) : std::string();
    out.notes.push_back(fmt::format("{}{}{}planned on CPUs {}", others_note, mates_note, queued_note,
                                    out.machine.usable.cpus.to_short_string()));
    return out;
  }
  // Busy: the fair part of the machine among the live runs, on the CPUs the fewest of them hold.
  std::size_t live = 1;
  for (const auto& run : others) live += run.state != RunState::running || !run.cpus.intersect(usable).empty();
  const int fair = std::clamp(n / static_cast<int>(live), 1, n);
  const int share = std::min(self.elastic ? std::max(self.need, fair) : self.need, static_cast<int>(usable.size()));
  out.busy = true;
  out.shares_cpus = true;
  out.machine = std::move(machine);
  out.machine.usable.cpus = quota ? usable : least_held(usable, holders, share);
  out.machine.usable.count = std::min(share, n);
  out.notes.push_back(fmt::format(
      "{}this run needs {} and {} free: it shares CPUs {} with them (its part of {} among {} runs), its OpenMP "
      "threads waiting passively",
      others_note.empty() ? std::string("other mptrain runs are queued or starting; ") : others_note,
      counted(self.need, "CPU"), std::max(0, available) == 1 ? "1 is" : fmt::format("{} are", std::max(0, available)),
      out.machine.usable.cpus.to_short_string(), counted(n, "CPU"), live));
  return out;
}

std::vector<std::string> describe_runs(const std::vector<RunRecord>& runs, const CpuSet& cpus) {
  std::vector<std::string> lines;
  for (const auto& run : runs) {
    if (!cpus.empty() && run.state == RunState::running && run.cpus.intersect(cpus).empty()) continue;
    const auto where = run.state == RunState::running
                           ? fmt::format("CPUs {}, {}x{}", run.cpus.to_short_string(), run.workers, run.threads)
                           : fmt::format("{}, needs {} CPUs", to_string(run.state), run.need);
    lines.push_back(fmt::format("pid {} (uid {}, {}): {}", run.pid, run.uid, where, printable(run.command)));
  }
  return lines;
}

std::string runs_listing(std::string_view heading, const std::vector<RunRecord>& runs) {
  auto text = fmt::format("{}: {}\n", heading, runs.empty() ? "none" : std::to_string(runs.size()));
  for (const auto& line : describe_runs(runs, CpuSet())) text += "  " + line + "\n";
  return text;
}

nlohmann::json runs_json(const std::vector<RunRecord>& runs) {
  auto out = nlohmann::json::array();
  for (const auto& run : runs) {
    out.push_back({{"pid", run.pid},
                   {"uid", run.uid},
                   {"state", to_string(run.state)},
                   {"cpus", run.cpus.to_string()},
                   {"numa_nodes", run.nodes.to_string()},
                   {"workers", run.workers},
                   {"threads", run.threads},
                   {"need", run.need},
                   {"started", run.started},
                   {"command", printable(run.command)}});
  }
  return out;
}

}  // namespace mptrain::launch
