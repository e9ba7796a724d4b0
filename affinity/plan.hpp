// The placement contract shared by `plan`, `run` and the launcher: what was
// asked (PlacementRequest) and what the planner decided (Plan).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "affinity/cpu_selection.hpp"
#include "util/cpu_set.hpp"
#include "util/names.hpp"
#include "util/option_spellings.hpp"
#include "util/result.hpp"

namespace mptrain::affinity {

// How a worker's CPUs are chosen and pinned (`--bind`).
enum class Bind { core, l3, numa, package, none };

// Its names (`--bind`).
inline constexpr std::array bind_names{Named<Bind>{Bind::core, "core"}, Named<Bind>{Bind::l3, "l3"},
                                       Named<Bind>{Bind::numa, "numa"}, Named<Bind>{Bind::package, "package"},
                                       Named<Bind>{Bind::none, "none"}};

// Which kinds of core a plan may use (`--cpu-kind`, hwloc's CPU kinds of a
// hybrid CPU); without it, every kind, each worker on one kind only, the
// performance cores first.
enum class CpuKindUse { performance, efficiency, all };

// Its names (`--cpu-kind`).
inline constexpr std::array cpu_kind_names{Named<CpuKindUse>{CpuKindUse::performance, "performance"},
                                           Named<CpuKindUse>{CpuKindUse::efficiency, "efficiency"},
                                           Named<CpuKindUse>{CpuKindUse::all, "all"}};

// "core", "l3", "numa", "package" or "none".
std::string_view to_string(Bind bind);
// "performance", "efficiency" or "all".
std::string_view to_string(CpuKindUse use);
// The Bind named `text`; an Error listing the valid names otherwise.
Result<Bind> parse_bind(std::string_view text);

// The most workers, or threads per worker, a request may ask for.
inline constexpr int max_count = 1 << 20;

// What a word given for the worker count M (-n, torchrun's --nproc-per-node) asks for.
enum class ProcessCountWord {
  number,       // a number of workers, to be checked as one
  one_per_cpu,  // torchrun's "auto" or "cpu": one worker per usable CPU
};
// Which kind of worker count `word` is; an Error for torchrun's "gpu" and
// "xpu", which count devices where mptrain runs CPU workers, saying what to give instead.
Result<ProcessCountWord> process_count_word(std::string_view word);

// Whether every PU may be used or only one PU per core (`--physical-cores`).
enum class CoreUse { all_pus, physical_cores };
// Whether M×T > N is refused or planned anyway (`--allow-oversubscribe`).
enum class Oversubscribe { refuse, allow };

// What the user asked for; unset fields take the spec's defaults.
struct PlacementRequest {
  std::optional<int> num_processes;        // default: one per package
  bool one_per_cpu = false;                // M = N, one worker per usable CPU (torchrun's auto and cpu)
  std::optional<int> threads_per_process;  // default: floor(N / M)
  std::optional<Bind> bind;                // default: core (none when a quota limits N)
  std::optional<CpuSelection> cpus;        // restrict to these CPUs (--cpus, resolved by the planner)
  CoreUse core_use = CoreUse::all_pus;
  int reserve = 0;  // PUs per worker left for helper threads
  Oversubscribe oversubscribe = Oversubscribe::refuse;
  std::optional<CpuKindUse> cpu_kind;  // default: every kind, one per worker, performance first
  OptionSpellings spellings;           // how the messages name -n and -t (torchrun: --nproc-per-node…)
};

// One worker's place: its CPUs, where they lie and how many threads it runs.
struct WorkerPlacement {
  int rank = 0;
  CpuSet cpus;         // the CPUs the worker is pinned to (all usable CPUs for bind none)
  int package = -1;    // the package holding all of `cpus`, -1 when they span several
  int numa_node = -1;  // the NUMA node holding all of `cpus`, -1 when they span several
  int threads = 0;     // compute threads: cpus per worker minus the reserve
  CpuSet reserved;     // the first --reserve PUs of its own set, for the communication library's threads
  int l3 = -1;         // the L3 cache (logical index) holding all of `cpus`, -1 when they span several or none
  std::optional<KindRole> kind;  // the kind of core of all of `cpus`; none when mixed or unknown
  CpuSet l3_caches;              // the L3 caches (logical indexes) its `cpus` lie in; empty when the machine shows none
};

// The planner's decision for M workers.
struct Plan {
  int usable_cpus = 0;          // N
  CpuSet usable_cpu_list;       // the usable CPUs after --cpus / --physical-cores
  int num_processes = 0;        // M
  int cpus_per_process = 0;     // T: PUs given to each worker
  int threads_per_process = 0;  // T − reserve: compute threads per worker
  int reserve = 0;              // PUs of each worker's set left for helper threads (--reserve)
  Bind bind = Bind::core;
  std::string bind_reason;      // why this binding was chosen (e.g. "a CPU quota limits N")
  bool oversubscribed = false;  // M × T > N (only with Oversubscribe::allow)
  bool shares_cpus = false;     // other runs' threads are on its CPUs (launch/sharing.hpp): pools wait passively
  CpuSet unused_cpus;           // usable CPUs no worker was given
  int cpu_kinds = 0;            // kinds of core the machine has (hwloc's CPU kinds; 0 when it knows none)
  int l3_caches = 0;            // L3 caches the machine shows
  std::vector<WorkerPlacement> workers;
  std::vector<std::string> notes;    // human remarks shown by `plan` and `run` (assumptions, limits hit)
  std::vector<std::string> choices;  // how defaults chose M and T ("-t not given: …"), shown by `plan` only
};

// What `plan` shows of `plan`: its notes, then how defaults chose M and T (its choices).
std::vector<std::string> notes_and_choices(const Plan& plan);

// The shape of `plan` in words: "4 workers x 8 threads", "1 worker x 1 thread".
std::string workers_by_threads(const Plan& plan);
// `plan` as `mptrain plan` shows it: its shape, N and bind, a table of the
// workers (rank, CPUs, kind of core where the machine has several, L3 caches
// where it shows them, package, NUMA node, threads), the unused CPUs and notes.
std::string plan_table(const Plan& plan);

}  // namespace mptrain::affinity
