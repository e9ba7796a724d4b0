// The findings for what users run into besides pools sized to all CPUs
// (SPEC, "What users run into"), each from evidence the sampler already
// reads — the runtimes a process maps, its environment, its threads'
// Cpus_allowed_list, names and switches:
//   two_openmp_runtimes  a process maps two OpenMP runtimes (GNU and LLVM or
//                        Intel), each sizing its own pool
//   nested_pools         the program's own threads each call a threaded
//                        runtime: more threads worked than one pool holds
//   allocation_mismatch  a process may use fewer CPUs than its launcher gave
//                        the job (Open MPI's binding of two ranks or fewer to
//                        a core each; srun since Slurm 22.05 without
//                        --cpus-per-task)
// and, for idle_capacity, whether the job's threads wanted CPU at all.
// Pure functions over a job's Evidence, called by the detector.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <vector>

#include "monitor/evidence.hpp"
#include "monitor/finding.hpp"
#include "monitor/thresholds.hpp"

namespace mptrain::monitor {

// What the detector has worked out that these findings read.
struct JobView {
  const Evidence& evidence;
  const Thresholds& thresholds;
  int n = 1;                               // N, the usable CPUs
  const std::map<pid_t, int>& pools;       // pool threads per process with one (THE MODEL)
  const std::map<pid_t, int>& busy_pools;  // the same for the busy processes (busy-process-demand)
  std::optional<Verdict> severity;         // what the loss earns a job-caused finding (nullopt: below warn)
};

// A two_openmp_runtimes finding for each process with pool threads that
// maps two or three of GNU, LLVM and Intel OpenMP: it names each library
// and what sizes its pool (OMP_NUM_THREADS, else the CPUs the process may
// use). Severity: the loss's, else info (healthy).
std::vector<Finding> check_two_openmp_runtimes(const JobView& job);

// A nested_pools finding for each busy process that maps a threaded runtime
// (OpenMP, OpenBLAS, MKL, BLIS, PyTorch; not oneTBB, whose one arena all
// callers share) whose pools, each sized by its variable or else by the
// CPUs the process may use, hold S ≥ 2 threads in all, while W ≥ S + 2
// threads worked: at least two threads beyond one pool and its caller, the
// program's own threads each calling into it. Not for a process with two
// OpenMP runtimes (two_openmp_runtimes says why it runs two pools). Only
// when the job loses throughput (the loss's severity); the fix: the
// runtime's knob at 1, or threadpoolctl around the threaded part.
std::vector<Finding> check_nested_pools(const JobView& job);

// An allocation_mismatch finding for each process with pool threads that
// may use fewer CPUs (its threads' widest Cpus_allowed_list) than its
// launcher gave it: SLURM_CPUS_PER_TASK (when SRUN_CPUS_PER_TASK does not
// say less), or, for a rank Open MPI bound at launch
// (OMPI_MCA_orte_bound_at_launch=1) of OMPI_COMM_WORLD_LOCAL_SIZE ≤ 2,
// ⌊N ÷ local size⌋. Severity: the loss's, else info.
std::vector<Finding> check_allocation_mismatch(const JobView& job);

// With a nested_pools finding, or a two_openmp_runtimes one that costs
// throughput, among `findings`: a thread_pool_too_large finding of one
// process is dropped and demand_above_capacity's fix points at that finding
// ("see nested_pools below"): sizing one pool to ⌊N/M⌋ would leave the
// nesting, or the other runtime's pool, as it is.
void settle_pool_fixes(std::vector<Finding>& findings);

// Rewrites the idle_capacity finding `idle` when some of the job's
// processes with pool threads did not want CPU: their pool threads slept
// (state S or D: neither on CPU nor runnable) at least idle-max-sleep-share
// of the time watched, giving up the CPU themselves (more voluntary
// switches than involuntary ones). They wait on a pipe, a queue, I/O or the
// program's serial part, so more threads would not use the idle CPUs: the
// message names them and the fix says what to look at instead of a thread
// count. `idle` is left as it is otherwise.
void explain_blocked(const JobView& job, Finding& idle);

}  // namespace mptrain::monitor
