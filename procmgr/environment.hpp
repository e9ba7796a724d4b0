// The environment a launched worker gets: thread counts, torchrun-compatible
// rendezvous variables, its CPU list, the placement of its OpenMP threads
// and a preloaded allocator. Built in the parent before fork.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/cpu_set.hpp"
#include "util/environment.hpp"
#include "util/names.hpp"
#include "util/thread_variables.hpp"

namespace mptrain::procmgr {

// What every worker of a launch is told about the group.
struct WorldInfo {
  int local_size = 1;                     // M, the workers on this node
  int node_rank = 0;                      // this node among `nodes` (torchrun's group)
  int nodes = 1;                          // K; the world is K x M workers
  int threads = 1;                        // T
  std::string master_addr = "127.0.0.1";  // MASTER_ADDR
  int master_port = 29500;                // MASTER_PORT
  int max_restarts = 0;                   // TORCHELASTIC_MAX_RESTARTS
  std::string role = "default";           // ROLE_NAME
  std::string run_id;                     // TORCHELASTIC_RUN_ID; "": not set (mptrain run)
};

// Whether thread-count variables already in mptrain's environment win (`--keep-env`).
enum class UserThreadEnv { override, keep };

// How the threads inside a worker are placed (`--omp-bind`).
enum class OmpBind {
  close,  // OpenMP thread i on the i-th PU of the worker's set
  none,   // left to float over the worker's set
};

// Its names (`--omp-bind`).
inline constexpr std::array omp_bind_names{Named<OmpBind>{OmpBind::close, "close"},
                                           Named<OmpBind>{OmpBind::none, "none"}};

// How the workers' OpenMP threads wait at a barrier or for work
// (`--wait-policy`): `automatic` passively where pools may hold more threads
// than their CPUs and as the runtimes default otherwise; `passive` always
// (OMP_WAIT_POLICY=passive, KMP_BLOCKTIME=0); `active` spinning
// (OMP_WAIT_POLICY=active), which answers a barrier fastest when every
// thread has a CPU of its own.
enum class WaitPolicy { automatic, passive, active };

// Its names (`--wait-policy`).
inline constexpr std::array wait_policy_names{Named<WaitPolicy>{WaitPolicy::automatic, "auto"},
                                              Named<WaitPolicy>{WaitPolicy::passive, "passive"},
                                              Named<WaitPolicy>{WaitPolicy::active, "active"}};

// The variables that place a program's OpenMP threads: OMP_PLACES and
// OMP_PROC_BIND (the OpenMP standard: GNU, LLVM and Intel runtimes),
// KMP_AFFINITY (Intel and LLVM's own) and GOMP_CPU_AFFINITY (GNU's own).
inline constexpr std::array<std::string_view, 4> thread_placement_variables = {"OMP_PLACES", "OMP_PROC_BIND",
                                                                               "KMP_AFFINITY", "GOMP_CPU_AFFINITY"};

// The variables that say how an OpenMP runtime's idle threads wait:
// OMP_WAIT_POLICY (the standard), KMP_BLOCKTIME (LLVM and Intel OpenMP),
// GOMP_SPINCOUNT (GNU OpenMP's spin before sleeping).
inline constexpr std::array<std::string_view, 3> wait_policy_variables = {"OMP_WAIT_POLICY", "KMP_BLOCKTIME",
                                                                          "GOMP_SPINCOUNT"};

// This process's environment and lookups in it (util/environment.hpp).
using mptrain::current_environment;
using mptrain::find_variable;

// The names of `thread_count_variables` that `environment` already sets.
std::vector<std::string> thread_variables_set(const std::vector<std::string>& environment);
// The names of `thread_placement_variables` that `environment` already sets.
std::vector<std::string> placement_variables_set(const std::vector<std::string>& environment);

// The names of `wait_policy_variables` that `environment` already sets.
std::vector<std::string> wait_variables_set(const std::vector<std::string>& environment);

// The variables that make the OpenMP runtimes of a pool larger than its
// CPUs wait passively, so that a queued thread does not spin at a barrier
// while the one it waits for needs its CPU: OMP_WAIT_POLICY=passive (GNU
// OpenMP then does not spin) and KMP_BLOCKTIME=0 (LLVM and Intel OpenMP) —
// each only where `environment` does not set it: the user's own wins.
std::vector<std::string> passive_wait_environment(const std::vector<std::string>& environment);
// The variable that makes OpenMP threads spin while they wait
// (OMP_WAIT_POLICY=active), only where `environment` does not set it.
std::vector<std::string> active_wait_environment(const std::vector<std::string>& environment);

// The variables for local worker `rank` planned on `cpus`: torchrun's RANK
// (node_rank x M + rank), LOCAL_RANK (rank), WORLD_SIZE (K x M),
// LOCAL_WORLD_SIZE (M), GROUP_RANK (node_rank), GROUP_WORLD_SIZE (K),
// ROLE_NAME, ROLE_RANK and ROLE_WORLD_SIZE (as RANK and WORLD_SIZE),
// TORCHELASTIC_MAX_RESTARTS, MASTER_ADDR, MASTER_PORT, MPTRAIN_CPUS, with a
// run id TORCHELASTIC_RUN_ID and TORCHELASTIC_USE_AGENT_STORE=False, then
// the thread counts —
// except, with UserThreadEnv::keep, thread variables that `environment`
// already sets.
std::vector<std::string> worker_environment(int rank, const CpuSet& cpus, const WorldInfo& world, UserThreadEnv policy,
                                            const std::vector<std::string>& environment);

// The variables of restart attempt `restart` (0 for the first start):
// MPTRAIN_RESTART_COUNT and torchrun's TORCHELASTIC_RESTART_COUNT.
std::vector<std::string> attempt_environment(int restart);

// The variables that place the OpenMP threads of a worker pinned to `cpus`,
// one place per PU in the set's order: OMP_PLACES="{0},{1}",
// OMP_PROC_BIND=close, KMP_AFFINITY="granularity=fine,explicit,proclist=[0,1]"
// and KMP_WARNINGS=0 (LLVM and Intel OpenMP read both KMP_AFFINITY and
// OMP_PLACES, and would warn on every start that one is ignored; a
// KMP_WARNINGS of the user's wins). None when `bind` is none, `cpus` is empty
// (the worker is not pinned) or `environment` sets any placement variable:
// the user's own placement wins whole.
std::vector<std::string> openmp_placement(const CpuSet& cpus, OmpBind bind,
                                          const std::vector<std::string>& environment);

// LD_PRELOAD with `library` (one path, or several separated by colons)
// first, then the libraries `environment` already preloads; none when
// `library` is empty.
std::vector<std::string> preload_environment(const std::string& library, const std::vector<std::string>& environment);

// The names in `environment` that an MPI launcher (Open MPI, PMIx, Hydra's
// PMI) set for this process: OMPI_*, PMIX_*, PMI_*, MPI_LOCALRANKID and
// MPI_LOCALNRANKS. Workers must not inherit them: they are not that
// launcher's ranks.
std::vector<std::string> mpi_launcher_variables(const std::vector<std::string>& environment);

// "MPTRAIN_SET=A,B,…": the names of the variables in `env` (what mptrain
// sets for a worker) that depend on the launch's options (thread counts,
// OpenMP places, the allocator's settings…): not LD_PRELOAD, which also
// holds the user's libraries, nor what every launch sets (the launcher's
// variables, each attempt's, the placement library's).
std::string set_variables_entry(const std::vector<std::string>& env);

// The environment for a launch started inside a worker of another mptrain
// run (a nested run): without the variables that run set for its workers
// (those MPTRAIN_SET names, MPTRAIN_SET, and what every launch sets) and
// without its placement
// library (`library_name`) in LD_PRELOAD, so that this run plans, places and
// caps on its own and does not take the outer run's settings for the
// user's; nullopt when `environment` holds neither (not inside a run).
std::optional<std::vector<std::string>> outside_outer_run(const std::vector<std::string>& environment,
                                                          std::string_view library_name);

// `environment` without the entries named in `names`.
std::vector<std::string> without_variables(std::vector<std::string> environment, const std::vector<std::string>& names);

// `base` with `overrides` applied: an entry of the same name is replaced in
// place, a new name is appended.
std::vector<std::string> merge_environment(std::vector<std::string> base, const std::vector<std::string>& overrides);

}  // namespace mptrain::procmgr
