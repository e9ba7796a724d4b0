// The report of a finished launch (pure): each worker's row, the output
// lost, the pools the programs sized themselves, and the exit code. The
// caller adds the plan's and the monitor's parts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "procmgr/group.hpp"
#include "procmgr/launch.hpp"
#include "util/cpu_set.hpp"

namespace mptrain::procmgr {

// mptrain's exit code after `result`: the failing worker's, else 1 when workers' output was lost, else 0.
int launch_exit_code(const GroupResult& result);

// The summary's text: "mptrain: SHAPE, bind BIND[, N restarts]", then one row
// per worker (rank, pid, its CPUs `cpus[rank]`, wall and CPU seconds, status).
std::string workers_text(const GroupResult& result, const std::string& shape, const std::string& bind,
                         const std::vector<CpuSet>& cpus);

// The summary's JSON keys of `result`: workers (as workers_text), exit_code,
// failed_rank, output_lost, forwarded_signal, restarts and `pools`.
nlohmann::json result_json(const GroupResult& result, const std::vector<CpuSet>& cpus,
                           const std::vector<PoolRecord>& pools);

// The pools per process, "rank 0 pid 12 (python3, slice 1: CPUs 1): asked for
// 2 threads (omp_set_num_threads), got 1", under a heading; "" for none.
std::string pools_text(const std::vector<PoolRecord>& records);
// The same as a JSON array of objects.
nlohmann::json pools_json(const std::vector<PoolRecord>& records);

// `spec` as a rank of `run --dry-run --json`: rank, cpus, mems, memory_policy,
// env (the variables of its first attempt), children_slices, unset, argv,
// the resolved `executable` and its command_line.
nlohmann::json dry_run_json(const WorkerSpec& spec, const std::vector<std::string>& command,
                            const std::vector<std::string>& unset, const std::string& executable);

}  // namespace mptrain::procmgr
