#include "affinity/json.hpp"

#include <optional>
#include <string>

namespace mptrain::affinity {

namespace {

// `index`, or null when it is -1 (a worker spanning several packages or nodes).
nlohmann::json index_or_null(int index) { return index < 0 ? nlohmann::json(nullptr) : nlohmann::json(index); }

// `text`, or null when it is empty (nothing found).
nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

nlohmann::json cgroup_json(const CgroupCpuLimits& cgroup) {
  const int version = version_number(cgroup.version);
  return {{"version", version == 0 ? nlohmann::json(nullptr) : nlohmann::json(version)},
          {"path", text_or_null(cgroup.path)},
          {"cpuset", cgroup.cpuset ? nlohmann::json(cgroup.cpuset->to_short_string()) : nlohmann::json(nullptr)},
          {"cpuset_file", text_or_null(cgroup.cpuset_file)},
          {"quota_cpus", cgroup.quota_cpus ? nlohmann::json(*cgroup.quota_cpus) : nlohmann::json(nullptr)},
          {"quota_file", text_or_null(cgroup.quota_file)}};
}

// The CPUs of each package and NUMA node of `topology`.
void add_layout_keys(nlohmann::json& object, const Topology& topology) {
  nlohmann::json packages = nlohmann::json::array();
  for (int package = 0; package < topology.packages; ++package) {
    packages.push_back({{"package", package}, {"cpus", package_cpus(topology, package).to_short_string()}});
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (int node : numa_node_ids(topology)) {
    nodes.push_back({{"numa_node", node}, {"cpus", numa_node_cpus(topology, node).to_short_string()}});
  }
  object["package_cpus"] = std::move(packages);
  object["numa_node_cpus"] = std::move(nodes);
}

// Each cache level of `topology`: its caches' sizes and PUs.
nlohmann::json caches_json(const Topology& topology) {
  nlohmann::json levels = nlohmann::json::array();
  for (const auto& level : topology.caches) {
    nlohmann::json caches = nlohmann::json::array();
    for (const auto& cache : level.caches) {
      caches.push_back(
          {{"cpus", cache.cpus.to_short_string()},
           {"size_bytes", cache.size_bytes == 0 ? nlohmann::json(nullptr) : nlohmann::json(cache.size_bytes)}});
    }
    levels.push_back({{"level", level.name}, {"count", level.caches.size()}, {"caches", std::move(caches)}});
  }
  return levels;
}

// Each kind of core of `topology`, the fastest first.
nlohmann::json kinds_json(const Topology& topology) {
  nlohmann::json kinds = nlohmann::json::array();
  for (const auto& kind : topology.kinds) {
    kinds.push_back({{"kind", to_string(kind.role)},
                     {"cpus", kind.cpus.to_short_string()},
                     {"core_type", text_or_null(kind.core_type)},
                     {"max_mhz", kind.max_mhz == 0 ? nlohmann::json(nullptr) : nlohmann::json(kind.max_mhz)}});
  }
  return kinds;
}

}  // namespace

void add_plan_keys(nlohmann::json& object, const Plan& plan) {
  object["num_processes"] = plan.num_processes;
  object["threads_per_process"] = plan.threads_per_process;
  object["bind"] = to_string(plan.bind);
}

void add_worker_keys(nlohmann::json& object, const WorkerPlacement& worker) {
  object["rank"] = worker.rank;
  object["cpus"] = worker.cpus.to_short_string();
}

nlohmann::json plan_json(const Plan& plan) {
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& worker : plan.workers) {
    nlohmann::json row = {{"package", index_or_null(worker.package)},
                          {"numa_node", index_or_null(worker.numa_node)},
                          {"l3", index_or_null(worker.l3)},
                          {"kind", worker.kind ? nlohmann::json(to_string(*worker.kind)) : nlohmann::json(nullptr)},
                          {"reserved_cpus", worker.reserved.to_short_string()},
                          {"threads", worker.threads}};
    add_worker_keys(row, worker);
    workers.push_back(std::move(row));
  }
  nlohmann::json out = {{"usable_cpus", plan.usable_cpus},
                        {"usable_cpu_list", plan.usable_cpu_list.to_short_string()},
                        {"cpus_per_process", plan.cpus_per_process},
                        {"reserve", plan.reserve},
                        {"bind_reason", plan.bind_reason},
                        {"oversubscribed", plan.oversubscribed},
                        {"unused_cpus", plan.unused_cpus.to_short_string()},
                        {"workers", std::move(workers)},
                        {"notes", notes_and_choices(plan)}};
  add_plan_keys(out, plan);
  return out;
}

void add_share_keys(nlohmann::json& object, const NodeShare& share) {
  object["cpus"] = share.cpus.to_short_string();
  object["host_cpus"] = share.host_cpus.to_short_string();
  object["split"] = to_string(share.kind);
  object["unused_cpus"] = share.unused.to_short_string();
}

nlohmann::json machine_json(const Machine& machine, const BindChoice& defaults) {
  const auto& t = machine.topology;
  const auto& u = machine.usable;
  nlohmann::json out = {{"topology", t.source},
                        {"packages", t.packages},
                        {"numa_nodes", t.numa_nodes},
                        {"cores", t.cores},
                        {"pus", static_cast<int>(t.pus.size())},
                        {"l3_caches", t.l3_caches},
                        {"online_cpus", u.online.to_short_string()},
                        {"affinity_cpus", u.affinity.to_short_string()},
                        {"cgroup", cgroup_json(u.cgroup)},
                        {"usable_cpus", u.count},
                        {"usable_cpu_list", u.cpus.to_short_string()},
                        {"limited_by", to_string(u.limited_by)},
                        {"explanation", explain(u)},
                        {"default_bind", to_string(defaults.bind)},
                        {"bind_reason", defaults.reason}};
  add_layout_keys(out, t);
  out["caches"] = caches_json(t);
  out["cpu_kinds"] = kinds_json(t);
  out["notes"] = t.notes;
  return out;
}

}  // namespace mptrain::affinity
