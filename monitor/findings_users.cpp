// The findings for what users run into (see findings_users.hpp).
#include "monitor/findings_users.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "monitor/loss_model.hpp"
#include "monitor/sizing.hpp"
#include "util/runtime_table.hpp"
#include "util/text.hpp"

namespace mptrain::monitor {

namespace {

// The threads of process `pid` that worked over the window (a process's pool, THE MODEL).
std::vector<const ThreadEvidence*> pool_threads(const JobView& job, pid_t pid) {
  std::vector<const ThreadEvidence*> threads;
  const QueueRule rule = queue_rule(job.thresholds);
  for (const auto& [tid, thread] : job.evidence.threads) {
    if (thread.pid != pid) continue;
    if (rule.working(ratio(thread.on_cpu_s, thread.observed_s), thread.demand())) threads.push_back(&thread);
  }
  return threads;
}

// How many CPUs process `pid` may use: its threads' widest Cpus_allowed_list (0 when unknown).
int allowed_cpus(const JobView& job, pid_t pid, std::string* list = nullptr) {
  int widest = 0;
  for (const auto& [tid, thread] : job.evidence.threads) {
    if (thread.pid != pid) continue;
    const auto set = CpuSet::parse(thread.cpus_allowed);
    if (!set.ok() || set->size() <= widest) continue;
    widest = set->size();
    if (list != nullptr) *list = set->to_short_string();
  }
  return widest;
}

// "python3 × 5, worker × 1": the names of `threads`, most common first.
std::string thread_names(const std::vector<const ThreadEvidence*>& threads) {
  std::map<std::string, int> counts;
  for (const auto* thread : threads) ++counts[printable(thread->comm)];
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (const auto& [name, count] : sorted) parts.push_back(fmt::format("{} × {}", name, count));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The count `env` gives variable `name`; nullopt when unset or not a thread-count variable.
std::optional<int> env_count(const ThreadEnv& env, std::string_view name) {
  for (std::size_t i = 0; i < thread_count_variables.size(); ++i) {
    if (thread_count_variables[i] == name) return env.counts[i];
  }
  return std::nullopt;
}

bool is_openmp(RuntimeKind kind) {
  return kind == RuntimeKind::gnu_openmp || kind == RuntimeKind::llvm_openmp || kind == RuntimeKind::intel_openmp;
}

std::vector<Runtime> openmp_runtimes(const ProcessEvidence& process) {
  std::vector<Runtime> found;
  for (const auto& runtime : process.runtimes) {
    if (is_openmp(runtime.kind)) found.push_back(runtime);
  }
  return found;
}

// What sizes `runtime`'s pool in `process`: "OMP_NUM_THREADS=2", or "OMP_NUM_THREADS, unset: the 2 CPUs it may use".
std::string pool_sizing(const ProcessEvidence& process, const Runtime& runtime, int allowed) {
  const auto name = variable(runtime.kind);
  if (name.empty()) return std::string(knob(runtime.kind));
  if (const auto value = env_count(process.env, name)) return fmt::format("{}={}", name, *value);
  return fmt::format("{}, unset: the {} it may use", name, counted(allowed, "CPU"));
}

// The command to show for `process`: its command line, or CMD.
std::string command_of(const ProcessEvidence& process) {
  return process.cmdline.empty() ? std::string("CMD") : printable(process.cmdline);
}

// The two_openmp_runtimes finding for `process` mapping `runtimes` (two or more OpenMP runtimes).
Finding two_runtimes_finding(const JobView& job, const ProcessEvidence& process, const std::vector<Runtime>& runtimes) {
  const int allowed = std::max(1, allowed_cpus(job, process.pid));
  std::vector<std::string> each;
  std::string preload;
  for (const auto& runtime : runtimes) {
    each.push_back(fmt::format("{} ({}) sizes its own from {}", to_string(runtime.kind), runtime.library,
                               pool_sizing(process, runtime, allowed)));
    if (runtime.kind != RuntimeKind::gnu_openmp && preload.empty()) preload = runtime.library;
  }
  const int pool = job.pools.count(process.pid) != 0 ? job.pools.at(process.pid) : 0;
  Finding f{FindingKind::two_openmp_runtimes, job.severity.value_or(Verdict::healthy), "", "", {}, {}, {}};
  f.message = fmt::format(
      "pid {} ({}) maps {} OpenMP runtimes, each running a pool of its own: {}; when both run parallel code at "
      "once their pools add up ({} of its threads worked, on {})",
      process.pid, printable(process.comm), runtimes.size(), fmt::join(each, "; "), pool, counted(allowed, "CPU"));
  const std::string command = command_of(process);
  f.fix = fmt::format(
      "run all its OpenMP code on one runtime, whose one pool both parts reuse: build the program and its "
      "libraries with one compiler's OpenMP (gcc -fopenmp, or clang -fopenmp=libgomp), or preload {}, which "
      "answers GNU OpenMP's calls too: `LD_PRELOAD={} {}`; or let an idle pool sleep instead of spinning against "
      "the other (both runtimes read it): `OMP_WAIT_POLICY=passive {}`; where both parts run at once, give each "
      "pool a share: `{}={} {}`",
      preload, preload, command, command, openmp_variable, std::max(1, allowed / static_cast<int>(runtimes.size())),
      command);
  f.numbers = {{"pid", process.pid},
               {"openmp_runtimes", static_cast<double>(runtimes.size())},
               {"pool_threads", pool},
               {"allowed_cpus", allowed}};
  return f;
}

// The variables that size the threaded runtimes `process` maps (not oneTBB), each once.
std::vector<std::string> pool_variables(const ProcessEvidence& process) {
  std::vector<std::string> names;
  for (const auto& runtime : process.runtimes) {
    const std::string name(variable(runtime.kind));
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

// The threads one pool of each of `process`'s runtimes holds: each variable's count, else `allowed`.
int one_pool(const ProcessEvidence& process, int allowed) {
  int size = 0;
  for (const auto& name : pool_variables(process)) size += env_count(process.env, name).value_or(allowed);
  return size;
}

// The nested_pools finding for `process`, whose `worked` pool threads exceed its runtimes' pools of `pool` threads.
Finding nested_finding(const JobView& job, const ProcessEvidence& process,
                       const std::vector<const ThreadEvidence*>& worked, int pool, int allowed) {
  std::vector<std::string> runtimes, sizing, assignments;
  for (const auto& runtime : process.runtimes) {
    if (variable(runtime.kind).empty()) continue;
    runtimes.push_back(fmt::format("{} ({})", to_string(runtime.kind), runtime.library));
    sizing.push_back(pool_sizing(process, runtime, allowed));
  }
  for (const auto& name : pool_variables(process)) assignments.push_back(name + "=1");
  Finding f{FindingKind::nested_pools, *job.severity, "", "", {}, {}, {}};
  const int workers = static_cast<int>(worked.size());
  f.message = fmt::format(
      "pid {} ({}): {} threads worked where the pool of {} holds {} ({}): the program's own threads (Python "
      "threads, a thread pool) each call into the runtime, a pool inside each of them, on {} (the threads that "
      "worked: {})",
      process.pid, printable(process.comm), workers, fmt::join(runtimes, " and "), pool, fmt::join(sizing, "; "),
      counted(allowed, "CPU"), thread_names(worked));
  f.fix = fmt::format(
      "let the program's own threads be the parallelism and {}: `{} {}`; or limit the runtime only around the "
      "threaded part, in Python with threadpoolctl: `with threadpoolctl.threadpool_limits(limits=1): …`",
      knob_settings({&process}, 1), fmt::join(assignments, " "), command_of(process));
  f.numbers = {{"pid", process.pid}, {"pool_threads", workers}, {"runtime_pool", pool}, {"allowed_cpus", allowed}};
  return f;
}

// A launcher whose allocation a process may not have got: how the
// allocation_mismatch finding finds and says it.
struct LauncherAllocation {
  std::string_view who;  // how the message names the process ("pid", "rank pid")
  // The CPUs the launcher gave a process with `env` that may use `allowed`; nullopt when it gave none or no more.
  std::optional<int> (*given)(const JobView& job, const ThreadEnv& env, int allowed);
  // Why the process got fewer, after "may use N CPUs (Cpus_allowed_list L)".
  std::string (*why)(const JobView& job, const ThreadEnv& env, int given);
  // What to do, for `given` CPUs.
  std::string (*fix)(int given);
};

// srun since Slurm 22.05 without --cpus-per-task; Open MPI's binding of two ranks or fewer to a core each.
constexpr std::array launcher_allocations{
    LauncherAllocation{
        "pid",
        [](const JobView&, const ThreadEnv& env, int allowed) -> std::optional<int> {
          const int asked = env.slurm_cpus_per_task;
          if (asked <= allowed || (env.srun_cpus_per_task > 0 && env.srun_cpus_per_task <= allowed)) return {};
          return asked;
        },
        [](const JobView&, const ThreadEnv&, int asked) {
          return fmt::format(
              "though its Slurm job asked for {} per task (SLURM_CPUS_PER_TASK={}): srun, since Slurm 22.05, does "
              "not pass sbatch's --cpus-per-task on to its steps",
              asked, asked);
        },
        [](int asked) {
          return fmt::format(
              "give the step its CPUs: `srun --cpus-per-task={} …`, or `export "
              "SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK` before srun in the batch script",
              asked);
        }},
    LauncherAllocation{
        "rank pid",
        [](const JobView& job, const ThreadEnv& env, int allowed) -> std::optional<int> {
          const int ranks = env.ompi_local_size;
          if (!env.ompi_bound_at_launch || ranks < 1 || ranks > 2) return {};
          const int share = job.n / ranks;
          if (allowed >= share) return {};
          return share;
        },
        [](const JobView& job, const ThreadEnv& env, int share) {
          return fmt::format(
              "of the {} its node's {} would give it: Open MPI bound it at launch (OMPI_MCA_orte_bound_at_launch=1) "
              "and binds each rank to one core when it starts two ranks or fewer (OMPI_COMM_WORLD_LOCAL_SIZE={})",
              share, counted(job.n, "usable CPU"), env.ompi_local_size);
        },
        [](int share) {
          return fmt::format(
              "bind each rank to its share: `mpirun --map-by slot:PE={} --bind-to core …`, or `mpirun --bind-to "
              "none …` with {}={}, or start `mpirun … mptrain run -- CMD`, which splits the node's "
              "CPUs between its ranks and pins each",
              share, openmp_variable, share);
        }},
};

// The allocation_mismatch of `process` allowed `allowed` CPUs (`list`): the first launcher whose CPUs it did not get,
// or nullopt.
std::optional<Finding> allocation_mismatch(const JobView& job, const ProcessEvidence& process, int allowed,
                                           const std::string& list) {
  for (const auto& launcher : launcher_allocations) {
    const auto given = launcher.given(job, process.env, allowed);
    if (!given) continue;
    Finding f{FindingKind::allocation_mismatch, job.severity.value_or(Verdict::healthy), "", "", {}, {}, {}};
    const int pool = job.pools.at(process.pid);
    f.message = fmt::format("{} {} ({}) may use {} (Cpus_allowed_list {}) {}; its {} ran on that", launcher.who,
                            process.pid, printable(process.comm), counted(allowed, "CPU"), list,
                            launcher.why(job, process.env, *given), counted(pool, "pool thread"));
    f.fix = launcher.fix(*given);
    f.numbers = {{"pid", process.pid}, {"allowed_cpus", allowed}, {"launcher_cpus", *given}, {"pool_threads", pool}};
    return f;
  }
  return std::nullopt;
}

// A process whose pool threads slept most of the window (explain_blocked): its pid and sleep share.
struct Sleeper {
  pid_t pid = 0;
  std::string comm;
  double sleep_share = 0;
  double voluntary_per_involuntary = 0;
};

std::optional<Sleeper> sleeper(const JobView& job, pid_t pid) {
  double observed = 0, wanted = 0, voluntary = 0, involuntary = 0;
  for (const auto* thread : pool_threads(job, pid)) {
    observed += thread->observed_s;
    wanted += thread->on_cpu_s + thread->wait_s;
    voluntary += static_cast<double>(thread->voluntary_switches);
    involuntary += static_cast<double>(thread->nonvoluntary_switches);
  }
  const double sleep = observed > 0 ? 1 - wanted / observed : 0;
  if (sleep < job.thresholds.idle_max_sleep_share || voluntary <= involuntary) return std::nullopt;
  return Sleeper{pid, job.evidence.processes.at(pid).comm, sleep, voluntary / std::max(1.0, involuntary)};
}

}  // namespace

std::vector<Finding> check_two_openmp_runtimes(const JobView& job) {
  std::vector<Finding> findings;
  for (const auto& [pid, pool] : job.pools) {
    const auto& process = job.evidence.processes.at(pid);
    const auto runtimes = openmp_runtimes(process);
    if (runtimes.size() >= 2) findings.push_back(two_runtimes_finding(job, process, runtimes));
  }
  return findings;
}

std::vector<Finding> check_nested_pools(const JobView& job) {
  std::vector<Finding> findings;
  if (!job.severity) return findings;
  for (const auto& [pid, busy] : job.busy_pools) {
    const auto& process = job.evidence.processes.at(pid);
    if (openmp_runtimes(process).size() >= 2) continue;
    const int allowed = std::max(1, allowed_cpus(job, pid));
    const int pool = one_pool(process, allowed);
    const auto worked = pool_threads(job, pid);
    if (pool < 2 || static_cast<int>(worked.size()) < pool + 2) continue;
    findings.push_back(nested_finding(job, process, worked, pool, allowed));
  }
  return findings;
}

std::vector<Finding> check_allocation_mismatch(const JobView& job) {
  std::vector<Finding> findings;
  for (const auto& [pid, pool] : job.pools) {
    const auto& process = job.evidence.processes.at(pid);
    std::string list;
    const int allowed = allowed_cpus(job, pid, &list);
    if (allowed == 0) continue;
    if (auto found = allocation_mismatch(job, process, allowed, list)) findings.push_back(std::move(*found));
  }
  return findings;
}

void settle_pool_fixes(std::vector<Finding>& findings) {
  const auto explains = [](const Finding& f) {
    return f.kind == FindingKind::nested_pools ||
           (f.kind == FindingKind::two_openmp_runtimes && f.severity != Verdict::healthy);
  };
  const auto cause = std::find_if(findings.begin(), findings.end(), explains);
  if (cause == findings.end()) return;
  const std::string fix = fmt::format("see {} below", to_string(cause->kind));
  std::erase_if(findings, [](const Finding& f) {
    return f.kind == FindingKind::thread_pool_too_large && f.numbers.count("processes") != 0 &&
           f.numbers.at("processes") == 1;
  });
  for (auto& f : findings) {
    if (f.kind == FindingKind::demand_above_capacity) f.fix = fix;
  }
}

void explain_blocked(const JobView& job, Finding& idle) {
  std::vector<Sleeper> sleepers;
  for (const auto& [pid, pool] : job.pools) {
    if (auto found = sleeper(job, pid)) sleepers.push_back(std::move(*found));
  }
  if (sleepers.empty()) return;
  std::vector<std::string> who, pids;
  double most = 0;
  for (const auto& s : sleepers) {
    who.push_back(fmt::format("pid {} ({}) slept {}, {:.0f} voluntary switches per involuntary one", s.pid,
                              printable(s.comm), percent(s.sleep_share), s.voluntary_per_involuntary));
    pids.push_back(std::to_string(s.pid));
    most = std::max(most, s.sleep_share);
  }
  idle.message += fmt::format(
      "; but the pool threads of {} (state S or D: neither on a CPU nor waiting for one): they gave up the CPU "
      "themselves and wait on a pipe, a queue, I/O or the program's serial part, not on CPUs, so more threads "
      "would not use the idle CPUs",
      fmt::join(who, "; "));
  idle.fix = fmt::format(
      "not a thread count: find what {} waits on (`py-spy dump --pid {}` for Python, `strace -f -p {}` for the "
      "calls it blocks in); feed it faster — more of the processes it waits on (a DataLoader's num_workers), "
      "prefetching, faster I/O — or shorten its serial part",
      sleepers.size() == 1 ? "it" : "each", pids.front(), pids.front());
  idle.numbers["sleep_share"] = most;
  idle.numbers["sleeping_processes"] = static_cast<double>(sleepers.size());
}

}  // namespace mptrain::monitor
