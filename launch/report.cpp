#include "launch/report.hpp"

#include <fmt/format.h>

#include "affinity/json.hpp"
#include "cluster/rendezvous.hpp"
#include "util/text.hpp"

namespace mptrain::launch {

namespace {

// Each rank's CPUs in `plan`.
std::vector<CpuSet> worker_cpus(const affinity::Plan& plan) {
  std::vector<CpuSet> cpus;
  for (const auto& worker : plan.workers) cpus.push_back(worker.cpus);
  return cpus;
}

}  // namespace

std::vector<monitor::LaunchedWorker> launched_workers(const affinity::Plan& plan, const procmgr::GroupResult& result) {
  std::vector<monitor::LaunchedWorker> workers;
  for (const auto& worker : result.workers) {
    workers.push_back({worker.rank, worker.pid, plan.workers.at(static_cast<std::size_t>(worker.rank)).cpus});
  }
  return workers;
}

std::string report_text(const Report& report) {
  const auto& [plan, result, monitor, advice, pools, node] = report;
  const std::string bind(affinity::to_string(plan.bind));
  auto text = procmgr::workers_text(result, workers_by_threads(plan), bind, worker_cpus(plan));
  if (const auto spread = monitor.spread_threads(); spread && *spread > 0) {
    text += fmt::format("mptrain: gave {} that no runtime placed a PU of its own\n", counted(*spread, "busy thread"));
  }
  return text + procmgr::pools_text(pools) + monitor.text();
}

nlohmann::json report_json(const Report& report, const std::vector<std::string>& command,
                           const cluster::TorchrunSettings* torchrun,
                           const std::vector<cluster::TorchrunFailure>& failures) {
  const auto& [plan, result, monitor, advice, pools, node] = report;
  auto summary = procmgr::result_json(result, worker_cpus(plan), pools);
  affinity::add_plan_keys(summary, plan);
  summary["command"] = command;
  summary["plan"] = affinity::plan_json(plan);
  summary["children_advice"] =
      advice ? nlohmann::json{{"children", advice->children}, {"command", advice->command}} : nlohmann::json(nullptr);
  const auto spread = monitor.spread_threads();
  summary["spread_threads"] = spread ? nlohmann::json(*spread) : nlohmann::json(nullptr);
  summary["monitor"] = monitor.report();
  add_node_keys(summary, report.node, plan.num_processes);
  if (torchrun != nullptr) {
    summary["run_id"] = torchrun->run_id;
    summary["log_dir"] =
        torchrun->remove_run_dir ? nlohmann::json(nullptr) : nlohmann::json(torchrun->run_dir.string());
    summary.update(cluster::torchrun_failures_json(failures));
  }
  return summary;
}

void add_node_keys(nlohmann::json& document, const cluster::NodeIdentity& node, int workers_per_node) {
  document["node"] = cluster::node_json(node);
  document["node"]["host"] = cluster::host_name();
  if (!document.contains("workers") || !document["workers"].is_array()) return;
  for (auto& worker : document["workers"]) {
    if (worker.contains("rank") && worker["rank"].is_number_integer()) {
      worker["global_rank"] = node.rank * workers_per_node + worker["rank"].get<int>();
    }
  }
}

std::vector<std::string> unplaced_warnings(const Report& report, const procmgr::WorkerSettings& settings,
                                           procmgr::Descendants asked) {
  if (settings.omp_bind != procmgr::OmpBind::close || report.plan.bind == affinity::Bind::none ||
      !settings.place_library.empty()) {
    return {};
  }
  const auto why = asked == procmgr::Descendants::leave ? monitor::Unplaced::left : monitor::Unplaced::library_missing;
  return monitor::inherited_binding_warnings(launched_workers(report.plan, report.result), report.monitor.diagnosis(),
                                             why);
}

}  // namespace mptrain::launch
