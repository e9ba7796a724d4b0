#include "monitor/sizing.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

#include "util/text.hpp"
#include "util/thread_variables.hpp"

namespace mptrain::monitor {

namespace {

// The runtimes `processes` map, each kind once, in RuntimeKind order.
std::vector<Runtime> runtimes_of(const std::vector<const ProcessEvidence*>& processes) {
  std::vector<Runtime> all;
  for (const auto* process : processes) {
    for (const auto& runtime : process->runtimes) {
      const auto same = [&](const Runtime& r) { return r.kind == runtime.kind; };
      if (std::none_of(all.begin(), all.end(), same)) all.push_back(runtime);
    }
  }
  std::sort(all.begin(), all.end(), [](const Runtime& a, const Runtime& b) { return a.kind < b.kind; });
  return all;
}

// The variables that size the pools of `runtimes`, each once; OMP_NUM_THREADS when none names one.
std::vector<std::string> sizing_variables(const std::vector<Runtime>& runtimes) {
  std::vector<std::string> names;
  for (const auto& runtime : runtimes) {
    const std::string name(variable(runtime.kind));
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.empty()) names.emplace_back(openmp_variable);
  return names;
}

// True when every one of `processes` has the same `field`.
template <class Field>
bool all_same(const std::vector<const ProcessEvidence*>& processes, Field field) {
  return std::all_of(processes.begin(), processes.end(),
                     [&](const ProcessEvidence* p) { return p->*field == processes.front()->*field; });
}

}  // namespace

bool retitled(std::string_view cmdline) {
  // The first word as shell_quote wrote it: '…' (with '\'' for a quote), or up to the first space.
  std::string first;
  if (cmdline.starts_with('\'')) {
    const auto end = cmdline.find('\'', 1);
    first = std::string(cmdline.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
  } else {
    first = std::string(cmdline.substr(0, cmdline.find(' ')));
  }
  return first.find_first_of(" \t") != std::string::npos;
}

namespace {

// The command line all `processes` share, else their common parent's (from `all`, or as they saw
// it); "" when neither is known. A process title the program wrote over its argv (retitled) is no
// command: its parent's is used, when it is one.
std::string command_of(const std::vector<const ProcessEvidence*>& processes,
                       const std::map<pid_t, ProcessEvidence>& all) {
  if (processes.empty()) return "";
  const bool same = all_same(processes, &ProcessEvidence::cmdline);
  if (same && !retitled(processes.front()->cmdline)) return processes.front()->cmdline;
  if (!all_same(processes, &ProcessEvidence::ppid)) return "";
  const auto parent = all.find(processes.front()->ppid);
  const std::string command = parent != all.end() ? parent->second.cmdline
                              : same              ? processes.front()->parent_cmdline
                                                  : "";
  return retitled(command) ? "" : command;
}

// The program that started every one of `processes` as its own workers —
// their common parent, not one of them, whose children are its forked
// copies (its command line) or its own spawned workers (command lines that
// differ: multiprocessing's spawn_main(…)) — as its command line: from `all`
// when it is watched; else, as its children saw it (`--pid` of the workers
// alone), only when they are its forked copies (programs a shell started
// differ from it too); "" for none. Copies of one other command (a script or
// xargs starting `python3 train.py` N times) are not its workers: they are N programs.
std::string starting_program(const std::vector<const ProcessEvidence*>& processes,
                             const std::map<pid_t, ProcessEvidence>& all) {
  if (processes.size() < 2 || !all_same(processes, &ProcessEvidence::ppid)) return "";
  const pid_t parent = processes.front()->ppid;
  const auto is_parent = [parent](const ProcessEvidence* p) { return p->pid == parent; };
  if (std::any_of(processes.begin(), processes.end(), is_parent)) return "";
  const auto found = all.find(parent);
  const bool watched = found != all.end();
  const std::string program = watched ? found->second.cmdline : processes.front()->parent_cmdline;
  if (program.empty()) return "";
  const bool copies = all_same(processes, &ProcessEvidence::cmdline);
  if (retitled(program)) return "";
  // Copies of another command are N programs; children that retitled themselves are the program's forks.
  if (copies && processes.front()->cmdline != program && !retitled(processes.front()->cmdline)) return "";
  return copies || watched ? program : "";
}

bool maps(const std::vector<Runtime>& runtimes, RuntimeKind kind) {
  return std::any_of(runtimes.begin(), runtimes.end(), [kind](const Runtime& r) { return r.kind == kind; });
}

// The count `env` gives the thread-count variable `name`; nullopt when unset or not one of them.
std::optional<int> env_count(const ThreadEnv& env, std::string_view name) {
  for (std::size_t i = 0; i < thread_count_variables.size(); ++i) {
    if (thread_count_variables[i] == name) return env.counts[i];
  }
  return std::nullopt;
}

// The thread-count variables that some of `processes` sets to at most `most` (so they may be what limits its pool),
// each once, in the list's order.
std::vector<std::string> variables_at_most(const std::vector<const ProcessEvidence*>& processes, int most) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < thread_count_variables.size(); ++i) {
    const auto limits = [i, most](const ProcessEvidence* p) { return p->env.counts[i].value_or(most + 1) <= most; };
    if (std::any_of(processes.begin(), processes.end(), limits)) names.emplace_back(thread_count_variables[i]);
  }
  return names;
}

}  // namespace

std::string runtimes_note(const std::vector<const ProcessEvidence*>& processes) {
  const auto runtimes = runtimes_of(processes);
  if (runtimes.empty()) return "";
  std::vector<std::string> parts;
  for (const auto& runtime : runtimes) {
    parts.push_back(fmt::format("{} ({}, sized by {})", to_string(runtime.kind), runtime.library, knob(runtime.kind)));
  }
  return fmt::format(" — the threads come from {}", fmt::join(parts, ", "));
}

namespace {

// Each runtime's own call that sizes its pool, as a program writes it.
std::string_view sizing_call(RuntimeKind kind) {
  switch (kind) {
    case RuntimeKind::pytorch:
      return "torch.set_num_threads";
    case RuntimeKind::gnu_openmp:
    case RuntimeKind::llvm_openmp:
    case RuntimeKind::intel_openmp:
    case RuntimeKind::openblas_openmp:
      return "omp_set_num_threads";
    case RuntimeKind::openblas_pthreads:
      return "openblas_set_num_threads";
    case RuntimeKind::mkl:
      return "mkl_set_num_threads";
    case RuntimeKind::blis:
      return "bli_thread_set_num_threads";
    case RuntimeKind::numba:
      return "numba.set_num_threads";
    case RuntimeKind::go:
      return "runtime.GOMAXPROCS";
    case RuntimeKind::rayon:
      return "rayon::ThreadPoolBuilder::num_threads";
    case RuntimeKind::numexpr:
      return "numexpr.set_num_threads";
    case RuntimeKind::polars:
    case RuntimeKind::julia:
    case RuntimeKind::tensorflow:
    case RuntimeKind::onetbb:
      return "";
  }
  return "";
}

// The fix for pools a program sized itself with `call` (a pool of `pool` threads, `limit` set by the
// variables), for `per` threads each.
std::string own_sizing_fix(const std::string& call, int pool, const std::string& limit, int per, const Launch& launch) {
  std::string what = fmt::format("the program sizes its pool itself: {} where {}; change its {}(…) to {}({})",
                                 counted(pool, "thread"), limit, call, call, std::max(1, per));
  if (!launch.inside_mptrain) {
    return what + ", or start it with `mptrain run`, which caps such calls to each process's CPUs";
  }
  if (launch.keep_program_threads) return what + ", or run without --keep-program-threads, which caps such calls";
  return what +
         " (mptrain caps such calls where it can reach them; this one it could not: a static binary, or a "
         "runtime it does not wrap)";
}

}  // namespace

std::string program_sizing_call(const ProcessEvidence& process, int pool) {
  for (const auto& runtime : process.runtimes) {
    const auto call = sizing_call(runtime.kind);
    if (call.empty()) continue;
    const auto name = variable(runtime.kind);
    const auto value = name.empty() ? std::nullopt : env_count(process.env, name);
    // torch reads OMP_NUM_THREADS too; a pool above the variable's count came from a call.
    const auto limit = value ? value : env_count(process.env, openmp_variable);
    if (limit && *limit < pool) return std::string(call);
  }
  return "";
}

std::string sizing_fix(const std::vector<const ProcessEvidence*>& processes, int n,
                       const std::map<pid_t, ProcessEvidence>& all, const std::map<pid_t, int>& pools,
                       const Launch& launch) {
  const int m = std::max<int>(1, static_cast<int>(processes.size()));
  const int per = n / m;
  for (const auto* process : processes) {
    const auto pool = pools.find(process->pid);
    if (pool == pools.end()) continue;
    const auto call = program_sizing_call(*process, pool->second);
    if (call.empty()) continue;
    const auto limit = env_count(process->env, openmp_variable);
    const std::string said =
        limit ? fmt::format("{}={}", openmp_variable, *limit) : std::string("its variables say less");
    return own_sizing_fix(call, pool->second, said, per, launch);
  }
  const std::string shared = command_of(processes, all);
  const std::string command = shared.empty() ? "CMD" : printable(shared);
  const auto runtimes = runtimes_of(processes);
  if (per == 0 && shared.empty()) {
    return fmt::format(
        "run at most {} CPU-bound processes at once, one thread each (`make -j {}`, `xargs -P {}`, or "
        "`mptrain run -n {} -- CMD`)",
        n, n, n, n);
  }
  if (per == 0) {
    return fmt::format("run at most {} with one thread each: `mptrain run -n {} -- {}`", counted(n, "process"), n,
                       command);
  }
  std::vector<std::string> assignments;
  for (const auto& name : sizing_variables(runtimes)) assignments.push_back(fmt::format("{}={}", name, per));
  const std::string env = fmt::format("{}", fmt::join(assignments, " "));
  const std::string torch = maps(runtimes, RuntimeKind::pytorch)
                                ? fmt::format(" (and torch.set_num_threads({}) where the program sets its own)", per)
                                : "";
  if (m == 1) return fmt::format("run it with {}: `{} {}`{}", counted(per, "thread"), env, command, torch);
  const std::string program = starting_program(processes, all);
  if (launch.inside_mptrain && (!program.empty() ? launch.children == m : launch.workers == m)) {
    // The run already is the launch mptrain would advise: only the knobs are left to name.
    return fmt::format("run each with {}: `{}` in its environment{}", counted(per, "thread"), env, torch);
  }
  if (!program.empty()) {
    // One program started them: it is one worker of mptrain's with m children, not m copies. The launch
    // leads: it also caps a pool the program sizes itself, where the variables do nothing (issue 55).
    return fmt::format(
        "start it with `mptrain run -n 1 --children {} -- {}`, which gives each of the {} it starts {} and {} of "
        "its own, even where the program sizes its pools itself; or run it with {}: `{} {}`{}",
        m, printable(program), counted(m, "process"), counted(per, "thread"),
        per == 1 ? std::string("a CPU") : counted(per, "CPU"), counted(per, "thread"), env, printable(program), torch);
  }
  return fmt::format(
      "run each with {}: `{} {}`{}, or start them with `mptrain run -n {} -- {}`, which sets {} and pins "
      "each process to its own {}",
      counted(per, "thread"), env, command, torch, m, command, fmt::join(thread_count_variables, ", "),
      per == 1 ? std::string("CPU") : counted(per, "CPU"));
}

std::string knob_settings(const std::vector<const ProcessEvidence*>& processes, int threads) {
  const auto runtimes = runtimes_of(processes);
  std::vector<std::string> parts;
  // oneTBB alone reads no variable: OMP_NUM_THREADS would size nothing there.
  const bool reads_variables = runtimes.empty() || std::any_of(runtimes.begin(), runtimes.end(), [](const Runtime& r) {
                                 return !variable(r.kind).empty();
                               });
  if (reads_variables) {
    std::vector<std::string> assignments;
    for (const auto& name : sizing_variables(runtimes)) assignments.push_back(fmt::format("{}={}", name, threads));
    parts.push_back(fmt::format("set {}", fmt::join(assignments, " ")));
  }
  if (maps(runtimes, RuntimeKind::pytorch)) parts.push_back(fmt::format("call torch.set_num_threads({})", threads));
  if (maps(runtimes, RuntimeKind::onetbb)) {
    parts.push_back(fmt::format("limit {} to {}", knob(RuntimeKind::onetbb), counted(threads, "CPU")));
  }
  return fmt::format("{}", fmt::join(parts, " and "));
}

std::string pool_limit(const ProcessEvidence& process, int pool) {
  for (const auto& runtime : process.runtimes) {
    const auto name = variable(runtime.kind);
    if (const auto value = env_count(process.env, name); value && *value <= pool) {
      return fmt::format("{}={} ({}, {})", name, *value, to_string(runtime.kind), runtime.library);
    }
  }
  if (!process.runtimes.empty()) {
    const auto& runtime = process.runtimes.front();
    return fmt::format("{} ({}), sized by {}", to_string(runtime.kind), runtime.library, knob(runtime.kind));
  }
  for (std::size_t i = 0; i < thread_count_variables.size(); ++i) {
    if (const auto value = process.env.counts[i]; value && *value <= pool) {
      return fmt::format("{}={} in its environment (no threading runtime mapped)", thread_count_variables[i], *value);
    }
  }
  return "";
}

std::string widening_fix(const std::vector<const ProcessEvidence*>& processes, int most, int n,
                         const std::map<pid_t, ProcessEvidence>& all) {
  const int m = std::max<int>(1, static_cast<int>(processes.size()));
  const int per = std::max(1, n / m);
  const int ranks = std::max(1, n / std::max(1, most));
  const std::string shared = command_of(processes, all);
  const std::string command = shared.empty() ? "CMD" : shared;
  const auto runtimes = runtimes_of(processes);
  std::vector<std::string> names = runtimes.empty() ? variables_at_most(processes, most) : sizing_variables(runtimes);
  const std::string as_ranks =
      fmt::format("`mptrain run -n {} -- {}` ({} of {} on CPUs of {})", ranks, command, counted(ranks, "rank"),
                  counted(n / ranks, "thread"), ranks == 1 ? "its own" : "their own");
  if (names.empty()) {
    return fmt::format(
        "no threading runtime or thread-count variable sizes its work, so the program itself runs {}: run it as "
        "{} of a data-parallel job, {}, or use a threaded library",
        counted(most, "busy thread"), counted(ranks, "rank"), as_ranks);
  }
  std::vector<std::string> assignments;
  for (const auto& name : names) assignments.push_back(fmt::format("{}={}", name, per));
  const std::string env = fmt::format("{}", fmt::join(assignments, " "));
  const std::string torch = maps(runtimes, RuntimeKind::pytorch)
                                ? fmt::format(" (and torch.set_num_threads({}) where the program sets its own)", per)
                                : "";
  const std::string each = m == 1 ? "" : fmt::format(" in each of the {}", counted(m, "process"));
  const std::string placed =
      m == 1 ? std::string()
             : fmt::format(", or start them with `mptrain run -n {} -- {}`, which gives each {} on CPUs of its own", m,
                           command, counted(per, "thread"));
  return fmt::format("set {}{}: `{} {}`{}{}; or, for a data-parallel job, run {}", env, each, env, command, torch,
                     placed, as_ranks);
}

}  // namespace mptrain::monitor
