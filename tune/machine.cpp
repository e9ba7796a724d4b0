#include "tune/machine.hpp"

#include <fmt/format.h>

#include <sstream>

#include "procmgr/allocator.hpp"
#include "util/text.hpp"

namespace mptrain::tune {

Result<CandidateInputs> machine_inputs(const affinity::Machine& machine, const FsRoot& root) {
  CandidateInputs inputs;
  inputs.usable_cpus = machine.usable.count;
  auto plan = affinity::make_plan(machine.topology, machine.usable, {});
  if (!plan.ok()) return plan.error();
  inputs.default_processes = plan->num_processes;
  int cores_used = 0;
  for (const auto& core : affinity::objects_of(machine.topology, affinity::ObjectType::core)) {
    if (!core.intersect(machine.usable.cpus).empty()) ++cores_used;
  }
  inputs.smt = cores_used > 0 && cores_used < machine.usable.cpus.size();
  for (const auto& row : procmgr::allocator_names) {
    if (row.value != procmgr::Allocator::system && procmgr::find_allocator(row.value, root).ok()) {
      inputs.allocators.emplace_back(row.name);
    }
  }
  return inputs;
}

std::string cpu_model(const FsRoot& root) {
  const auto text = root.read("/proc/cpuinfo");
  if (!text.ok()) return "";
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(':');
    if (colon != std::string::npos && trim(std::string_view(line).substr(0, colon)) == "model name") {
      return std::string(trim(std::string_view(line).substr(colon + 1)));
    }
  }
  return "";
}

std::string tune_command(const std::vector<std::string>& command) {
  return "mptrain tune -- " + (command.empty() ? std::string("CMD") : shell_command(command));
}

std::string measure_hint(const std::vector<std::string>& command) {
  return "to measure which launch is fastest for it: " + tune_command(command);
}

}  // namespace mptrain::tune
