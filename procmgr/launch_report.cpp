#include "procmgr/launch_report.hpp"

#include <fmt/format.h>

#include <cstring>

#include "util/failure.hpp"
#include "util/text.hpp"

namespace mptrain::procmgr {

namespace {

nlohmann::json null_or(bool given, const auto& value) {
  return given ? nlohmann::json(value) : nlohmann::json(nullptr);
}

const CpuSet& cpus_of(const std::vector<CpuSet>& cpus, int rank) { return cpus.at(static_cast<std::size_t>(rank)); }

}  // namespace

int launch_exit_code(const GroupResult& result) {
  if (result.failed_rank) return result.exit_code();
  return result.output_losses.empty() ? exit_code::success : exit_code::runtime_failure;
}

std::string workers_text(const GroupResult& result, const std::string& shape, const std::string& bind,
                         const std::vector<CpuSet>& cpus) {
  std::string text = fmt::format("mptrain: {}, bind {}{}\n", shape, bind,
                                 result.restarts > 0 ? ", " + counted(result.restarts, "restart") : "");
  text += fmt::format("{:>4}  {:>7}  {:<16}  {:>8}  {:>8}  {}\n", "RANK", "PID", "CPUS", "WALL S", "CPU S", "STATUS");
  for (const auto& worker : result.workers) {
    text += fmt::format("{:>4}  {:>7}  {:<16}  {:>8.2f}  {:>8.2f}  {}\n", worker.rank, worker.pid,
                        cpus_of(cpus, worker.rank).to_short_string(), worker.wall_seconds, worker.cpu_seconds,
                        worker.status.describe());
  }
  return text;
}

nlohmann::json result_json(const GroupResult& result, const std::vector<CpuSet>& cpus,
                           const std::vector<PoolRecord>& pools) {
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& worker : result.workers) {
    workers.push_back({{"rank", worker.rank},
                       {"pid", worker.pid},
                       {"cpus", cpus_of(cpus, worker.rank).to_short_string()},
                       {"wall_seconds", worker.wall_seconds},
                       {"cpu_seconds", worker.cpu_seconds},
                       {"exit_code", worker.status.shell_code()},
                       {"status", worker.status.describe()}});
  }
  nlohmann::json losses = nlohmann::json::array();
  for (const auto& loss : result.output_losses) {
    losses.push_back({{"rank", loss.rank},
                      {"stream", loss.stream == Streams::err ? "stderr" : "stdout"},
                      {"destination", loss.destination},
                      {"bytes", loss.bytes},
                      {"error", std::strerror(loss.error)}});
  }
  return {{"workers", std::move(workers)},
          {"exit_code", launch_exit_code(result)},
          {"failed_rank", null_or(result.failed_rank.has_value(), result.failed_rank.value_or(0))},
          {"output_lost", std::move(losses)},
          {"forwarded_signal", null_or(result.forwarded_signal != 0, signal_name(result.forwarded_signal))},
          {"restarts", result.restarts},
          {"pools", pools_json(pools)}};
}

std::string pools_text(const std::vector<PoolRecord>& records) {
  std::string text;
  for (const auto& [rank, process] : records) {
    const std::string name = process.comm.empty() ? std::string() : printable(process.comm);
    if (process.own_affinity) {
      text += fmt::format("  rank {} pid {}{}: set its own CPU affinity; left alone, its pools uncapped\n", rank,
                          process.pid, name.empty() ? name : " (" + name + ")");
      continue;
    }
    const auto cpus = process.cpus.to_short_string();
    const auto where = process.slice >= 0 ? fmt::format("slice {}: CPUs {}", process.slice, cpus) : "CPUs " + cpus;
    text += fmt::format("  rank {} pid {} ({}{}): asked for {} ({}), got {}\n", rank, process.pid,
                        name.empty() ? name : name + ", ", where, counted(process.asked, "thread"), process.call,
                        process.got);
  }
  return text.empty() ? text : "mptrain: the thread pools the programs sized themselves:\n" + text;
}

nlohmann::json pools_json(const std::vector<PoolRecord>& records) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [rank, process] : records) {
    list.push_back({{"rank", rank},
                    {"pid", process.pid},
                    {"comm", process.comm},
                    {"slice", null_or(process.slice >= 0, process.slice)},
                    {"cpus", process.cpus.to_short_string()},
                    {"asked", process.asked},
                    {"got", process.got},
                    {"call", process.call},
                    {"own_affinity", process.own_affinity}});
  }
  return list;
}

nlohmann::json dry_run_json(const WorkerSpec& spec, const std::vector<std::string>& command,
                            const std::vector<std::string>& unset, const std::string& executable) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& entry : first_attempt_variables(spec)) {
    const auto equals = entry.find('=');
    env[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  const auto cpus = spec.cpus.to_short_string();
  const auto mems = spec.memory.nodes.to_short_string();
  return {{"rank", spec.rank},
          {"cpus", null_or(!cpus.empty(), cpus)},
          {"mems", null_or(!mems.empty(), mems)},
          {"memory_policy", spec.memory.nodes.empty() ? "default" : to_string(spec.memory.mode)},
          {"env", std::move(env)},
          {"children_slices", child_slices_of(spec)},
          {"unset", unset},
          {"argv", command},
          {"executable", executable},
          {"command_line", command_line(spec, command, unset)}};
}

}  // namespace mptrain::procmgr
