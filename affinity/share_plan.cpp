#include "affinity/share_plan.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

namespace mptrain::affinity {

Result<SharePlan> plan_share(const Machine& machine, PlacementRequest request, int local_rank, int local_size) {
  std::optional<CpuSet> only;
  std::string selected_by;  // "--cpus TEXT: " before a refusal of the selection's share
  if (request.cpus && local_size > 1) {
    auto selected = resolve_cpu_selection(*request.cpus, machine.topology);
    if (!selected.ok()) return Error{"--cpus: " + selected.error().message};
    only = std::move(selected).value();
    selected_by = fmt::format("--cpus {}: ", request.cpus->text);
    request.cpus.reset();
  }
  auto share = node_share(machine.topology, machine.usable, local_rank, local_size, only);
  if (!share.ok()) return Error{selected_by + share.error().message};
  auto plan = make_plan(machine.topology, usable_share(machine.usable, *share), request);
  if (!plan.ok()) return plan.error();
  SharePlan out{std::move(share).value(), std::move(plan).value()};
  // The share's notes first: they say which CPUs the workers were planned on.
  out.plan.notes.insert(out.plan.notes.begin(), out.share.notes.begin(), out.share.notes.end());
  return out;
}

}  // namespace mptrain::affinity
