#include "cli/placement_options.hpp"

#include "util/failure.hpp"

namespace mptrain::cli {

void add_placement_options(CLI::App& command, PlacementOptions& options) {
  command.add_option("-n,--num-processes", options.num_processes, "Worker processes M (default: one per package)")
      ->check(CLI::PositiveNumber)
      ->group("Placement");
  command.add_option("-t,--threads-per-process", options.threads_per_process, "Threads per worker T (default: floor(N/M))")
      ->check(CLI::PositiveNumber)
      ->group("Placement");
  command.add_option("--bind", options.bind, "Pinning: core, numa, package or none (default: core)")
      ->check(CLI::IsMember({"core", "numa", "package", "none"}))
      ->group("Placement");
  command.add_option("--cpus", options.cpus, "Use only these CPUs, a list such as 0-3,8")->group("Placement");
  command.add_flag("--physical-cores", options.physical_cores, "Use one PU (hardware thread) per core")->group("Placement");
  command.add_option("--reserve", options.reserve, "PUs of each worker's set left for helper threads")
      ->check(CLI::NonNegativeNumber)
      ->group("Placement");
  command.add_flag("--allow-oversubscribe", options.allow_oversubscribe, "Plan M x T > N anyway (for demonstrations)")
      ->group("Placement");
}

affinity::PlacementRequest to_request(const PlacementOptions& options) {
  affinity::PlacementRequest request;
  if (options.num_processes > 0) request.num_processes = options.num_processes;
  if (options.threads_per_process > 0) request.threads_per_process = options.threads_per_process;
  if (!options.bind.empty()) request.bind = value_or_fail(affinity::parse_bind(options.bind), exit_code::usage_error);
  if (!options.cpus.empty()) {
    auto cpus = CpuSet::parse(options.cpus);
    if (!cpus.ok()) usage_failure("--cpus: {}", cpus.error().message);
    if (cpus->empty()) usage_failure("--cpus: the list is empty; give CPUs such as 0-3");
    request.cpus = *cpus;
  }
  request.core_use = options.physical_cores ? affinity::CoreUse::physical_cores : affinity::CoreUse::all_pus;
  request.reserve = options.reserve;
  request.oversubscribe = options.allow_oversubscribe ? affinity::Oversubscribe::allow : affinity::Oversubscribe::refuse;
  return request;
}

}  // namespace mptrain::cli
