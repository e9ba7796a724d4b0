// The launch builder of `run -- CMD` (pure): from the planned workers, what
// every worker is told about the group, the settings the options ask for and
// mptrain's own environment, each worker's spec — its variables (torchrun's,
// thread counts, OpenMP placement, LD_PRELOAD, the placement library's, the
// wait policy) and memory policy — and the warnings and refusals they call for.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "procmgr/environment.hpp"
#include "procmgr/group.hpp"
#include "procmgr/output.hpp"
#include "procmgr/tree_placement.hpp"
#include "util/cpu_set.hpp"
#include "util/names.hpp"
#include "util/result.hpp"

namespace mptrain::procmgr {

// What becomes of the processes a worker's program starts (`--descendants`).
enum class Descendants {
  place,  // the placement library gives them the worker's CPUs
  leave,  // they keep what they inherit
};

// Its names (`--descendants`).
inline constexpr std::array descendants_names{Named<Descendants>{Descendants::place, "place"},
                                              Named<Descendants>{Descendants::leave, "leave"}};

// One planned worker as the launch needs it.
struct PlannedWorker {
  int rank = 0;
  CpuSet cpus;         // its CPUs in the plan (also when the plan pins nothing)
  int numa_node = -1;  // the NUMA node of its CPUs; -1: several or unknown
  CpuSet reserved;     // the CPUs of `cpus` kept for the communication library's threads (--reserve)
};

// The workers of a launch: where they run, and whether they are pinned there.
struct LaunchLayout {
  std::vector<PlannedWorker> workers;  // index = rank
  bool pinned = true;                  // false: the plan's binding is none
  CpuSet online_nodes;                 // the machine's NUMA nodes; empty: no NUMA support
};

// What each worker gets besides its rank and CPUs: thread placement, allocator, memory policy.
struct WorkerSettings {
  UserThreadEnv thread_counts = UserThreadEnv::override;
  OmpBind omp_bind = OmpBind::close;
  std::string preload;             // the allocator library; "": none
  std::string allocator_settings;  // "MALLOC_CONF=…" for the preloaded allocator; "": none
  std::optional<MemoryPolicy> memory;
  int children = 0;                 // K working children per worker (--children); 0: none
  std::string place_library;        // libmptrain_place.so; "": the workers' descendants are left alone
  std::vector<std::string> tables;  // per local rank, the path of its tree table (with the library)
  std::vector<int> table_fds;       // per local rank, its descriptor, which the worker inherits
  ProgramThreads program_threads = ProgramThreads::cap;
  bool passive_wait = false;  // pools may hold more threads than CPUs, or --wait-policy passive: OpenMP waits passively
  bool active_wait = false;   // --wait-policy active: OpenMP threads spin while they wait
  int launcher = 0;           // mptrain's pid, for the placement library
};

// One spec per worker of `layout`, pinned to its CPUs and, where the machine
// has several NUMA nodes, its memory bound to its node (node_memory_policy);
// neither when the layout is not pinned. The caller adds what runs.
std::vector<WorkerSpec> pinned_specs(const LaunchLayout& layout);

// The communication libraries' variables --reserve sets.
inline constexpr std::array<std::string_view, 3> communication_variables = {"CCL_WORKER_COUNT", "CCL_WORKER_AFFINITY",
                                                                            "I_MPI_PIN_DOMAIN"};

// The variables that hand each worker's reserved CPUs of `layout` to the
// communication libraries, when the plan reserves some and pins the
// workers: oneCCL's CCL_WORKER_COUNT (the reserve per worker) and
// CCL_WORKER_AFFINITY (every local rank's reserved CPUs in rank order, the
// i-th worker thread of local rank r on entry r x count + i), and Intel
// MPI's I_MPI_PIN_DOMAIN (each rank's compute CPUs as a hexadecimal mask,
// "[0xff0,0xff000]"), each only where `environment` does not set it: the
// user's own wins. None otherwise.
std::vector<std::string> communication_environment(const LaunchLayout& layout,
                                                   const std::vector<std::string>& environment);

// The specs of a launch: pinned_specs, each with worker_environment (the
// tree's threads with --children), openmp_placement (without --children:
// the library places a child's threads in its slice), LD_PRELOAD (the
// allocator, then the placement library, then `environment`'s own), the
// placement library's variables and its table's descriptor, the passive
// wait, the allocator's settings (unless `environment` has its own), the
// communication libraries' reserved CPUs (OpenMP then places its threads
// on the others), and the memory policy asked for.
std::vector<WorkerSpec> launch_specs(const LaunchLayout& layout, const WorldInfo& world, const WorkerSettings& settings,
                                     const std::vector<std::string>& environment);

// Creates one tree table per worker of `workers` (with `settings.children`
// slices) and records their paths and descriptors in `settings`; the tables
// must live until the run ends. An Error when one cannot be made.
Result<std::vector<PlaceTable>> create_tree_tables(int workers, WorkerSettings& settings);

// The warnings `environment` calls for in a launch with `settings` and
// `threads` threads per worker (`pinned`: the plan pins them): a wait policy
// of its own the passive wait leaves alone, allocator settings of its own,
// the communication libraries' variables of its own the reserve leaves alone
// (`reserve`: the plan reserves CPUs), thread-count variables the
// workers get replaced, and its own OpenMP placement, which replaces mptrain's.
std::vector<std::string> environment_warnings(const std::vector<std::string>& environment,
                                              const WorkerSettings& settings, int threads, bool pinned,
                                              bool reserve = false);

// Whether the workers' descendants are placed by the library.
enum class PlaceNeed {
  none,      // no: --descendants leave
  wanted,    // yes; without the library they keep what they inherit (a warning)
  required,  // yes, with --children: no launch without it
};

// What `children` (--children K, 0: none) and `descendants` ask of the
// placement library, pinned or not (unpinned it still caps the programs'
// own pools to the plan); an Error when they contradict each other
// (--children with --descendants leave).
Result<PlaceNeed> place_need(int children, Descendants descendants);

// The warning for a program at `path` that a preloaded library does not
// reach (`reach`), for workers with `children` working children; "" when it reaches.
std::string unreachable_warning(const std::string& path, PreloadReach reach, int children);

// unreachable_warning for the program `program` (argv[0], looked up in
// PATH, its file read); "" when it reaches or cannot be found (the launch
// itself says why it cannot run).
std::string program_reach_warning(const std::string& program, int children);

// The memory policy `--membind` (MemoryMode::bind) or `--interleave` asks
// for with `text` ("0-1", or "all") on a machine whose NUMA nodes are
// `online`; an Error saying what is wrong with `text` otherwise.
Result<MemoryPolicy> requested_memory(MemoryMode mode, std::string_view text, const CpuSet& online);

// Why the policy `mode` asks for cannot be set when the NUMA nodes cannot be read (`error`).
std::string numa_unreadable(MemoryMode mode, const Error& error);

// The stream choice option `name` was given as `text` ("" for none:
// `fallback`); an Error when it names a rank the group of `world_size` lacks.
Result<StreamChoice> stream_choice_for(std::string_view name, const std::string& text, Streams fallback,
                                       int world_size);

// `specs` as a dry run shows them: without launcher_bound_variables.
std::vector<WorkerSpec> dry_run_specs(std::vector<WorkerSpec> specs);

// Every variable mptrain sets for `spec` in its first attempt, "NAME=value".
std::vector<std::string> first_attempt_variables(const WorkerSpec& spec);

// The shell command line that starts `spec`'s worker running `command` as
// mptrain would: taskset (or numactl with a memory policy), then env
// without the variables `unset` and with first_attempt_variables.
std::string command_line(const WorkerSpec& spec, const std::vector<std::string>& command,
                         const std::vector<std::string>& unset);

// The CPU slices of `spec`'s working children (--children), each in the
// short form ("0-1", "0-6:2"), from the variable that carries them; none without.
std::vector<std::string> child_slices_of(const WorkerSpec& spec);

// One process of a worker's tree that asked for threads, or that mptrain left alone.
struct PoolRecord {
  int rank = 0;  // the worker's local rank
  PlacedProcess process;
};

// What the placement library recorded in `tables` (index = rank) of the
// processes that asked for threads or set their own affinity, rank by rank;
// a table that cannot be read adds none.
std::vector<PoolRecord> read_pool_records(const std::vector<PlaceTable>& tables);

}  // namespace mptrain::procmgr
