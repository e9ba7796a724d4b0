#include "procmgr/launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "procmgr/spawn.hpp"
#include "util/cpu_set.hpp"
#include "util/place_variables.h"
#include "util/text.hpp"

namespace mptrain::procmgr {

std::vector<WorkerSpec> pinned_specs(const LaunchLayout& layout) {
  std::vector<WorkerSpec> specs;
  for (const auto& worker : layout.workers) {
    WorkerSpec spec;
    spec.rank = worker.rank;
    if (layout.pinned) {
      spec.cpus = worker.cpus;
      spec.memory = node_memory_policy(worker.numa_node, layout.online_nodes);
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

namespace {

void append(std::vector<std::string>& env, std::vector<std::string> entries) {
  for (auto& entry : entries) env.push_back(std::move(entry));
}

// The placement library's variables for worker `rank` on `cpus` of a world of `threads` threads each.
std::vector<std::string> library_variables(int rank, const CpuSet& cpus, int threads, const WorkerSettings& settings) {
  TreePlacement tree;
  tree.cpus = cpus;
  tree.slices = child_slices(cpus, threads, settings.children);
  tree.threads = threads;
  tree.threads_per_child = child_threads(threads, settings.children);
  tree.table = settings.tables.at(static_cast<std::size_t>(rank));
  tree.launcher = settings.launcher;
  tree.program_threads = settings.program_threads;
  return tree_placement_environment(tree);
}

// `cpus` as a hexadecimal mask, lowest CPU in the lowest bit: "0xff0".
std::string hex_mask(const CpuSet& cpus) {
  if (cpus.empty()) return "0x0";
  std::string digits(static_cast<std::size_t>(cpus.cpus().back() / 4 + 1), '0');
  for (int cpu : cpus.cpus()) {
    char& digit = digits[digits.size() - 1 - static_cast<std::size_t>(cpu / 4)];
    const int value = (digit <= '9' ? digit - '0' : digit - 'a' + 10) | (1 << (cpu % 4));
    digit = static_cast<char>(value < 10 ? '0' + value : 'a' + value - 10);
  }
  return "0x" + digits;
}

}  // namespace

std::vector<std::string> communication_environment(const LaunchLayout& layout,
                                                   const std::vector<std::string>& environment) {
  std::vector<int> reserved;
  std::vector<std::string> domains;
  int count = 0;
  for (const auto& worker : layout.workers) {
    count = std::max(count, worker.reserved.size());
    reserved.insert(reserved.end(), worker.reserved.cpus().begin(), worker.reserved.cpus().end());
    domains.push_back(hex_mask(worker.cpus.minus(worker.reserved)));
  }
  if (count == 0 || !layout.pinned) return {};
  const std::array<std::string, 3> values = {std::to_string(count), fmt::format("{}", fmt::join(reserved, ",")),
                                             fmt::format("[{}]", fmt::join(domains, ","))};
  std::vector<std::string> entries;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!find_variable(environment, communication_variables[i])) {
      entries.push_back(fmt::format("{}={}", communication_variables[i], values[i]));
    }
  }
  return entries;
}

std::vector<WorkerSpec> launch_specs(const LaunchLayout& layout, const WorldInfo& world, const WorkerSettings& settings,
                                     const std::vector<std::string>& environment) {
  auto specs = pinned_specs(layout);
  // With --children the whole tree gets each child's thread count.
  WorldInfo tree_world = world;
  tree_world.threads = child_threads(world.threads, settings.children);
  // LD_PRELOAD: the allocator, then the placement library, then the user's.
  std::string preload = settings.preload;
  if (!settings.place_library.empty()) preload += (preload.empty() ? "" : ":") + settings.place_library;
  const auto communication = communication_environment(layout, environment);
  for (auto& spec : specs) {
    const auto& worker = layout.workers.at(static_cast<std::size_t>(spec.rank));
    const auto& cpus = worker.cpus;
    spec.env = worker_environment(spec.rank, cpus, tree_world, settings.thread_counts, environment);
    // OpenMP's places leave out the CPUs reserved for the communication library's threads.
    const auto compute = communication.empty() ? spec.cpus : spec.cpus.minus(worker.reserved);
    if (settings.children == 0) append(spec.env, openmp_placement(compute, settings.omp_bind, environment));
    append(spec.env, preload_environment(preload, environment));
    if (!settings.allocator_settings.empty() &&
        !find_variable(environment, variable_name(settings.allocator_settings))) {
      spec.env.push_back(settings.allocator_settings);
    }
    append(spec.env, communication);
    if (!settings.place_library.empty()) {
      append(spec.env, library_variables(spec.rank, cpus, world.threads, settings));
      spec.inherit_fds.push_back(settings.table_fds.at(static_cast<std::size_t>(spec.rank)));
    }
    if (settings.passive_wait) append(spec.env, passive_wait_environment(environment));
    if (settings.active_wait) append(spec.env, active_wait_environment(environment));
    if (settings.memory) spec.memory = *settings.memory;
    spec.env.push_back(set_variables_entry(spec.env));  // a run started inside the worker plans without them
  }
  return specs;
}

Result<std::vector<PlaceTable>> create_tree_tables(int workers, WorkerSettings& settings) {
  std::vector<PlaceTable> tables;
  for (int rank = 0; rank < workers; ++rank) {
    auto table = PlaceTable::create(settings.children);
    if (!table.ok()) return table.error();
    tables.push_back(std::move(*table));
    settings.tables.push_back(tables.back().path());
    settings.table_fds.push_back(tables.back().fd());
  }
  return tables;
}

namespace {

// One warning per variable of `names` that `environment` sets: "NAME=VALUE is set" and `why`.
template <class Names>
void warn_set(std::vector<std::string>& warnings, const Names& names, const std::vector<std::string>& environment,
              std::string_view why) {
  std::string value;
  for (const auto& name : names) {
    if (find_variable(environment, name, &value)) warnings.push_back(fmt::format("{}={} is set{}", name, value, why));
  }
}

}  // namespace

std::vector<std::string> environment_warnings(const std::vector<std::string>& environment,
                                              const WorkerSettings& settings, int threads, bool pinned, bool reserve) {
  std::vector<std::string> warnings;
  if (!settings.allocator_settings.empty()) {
    warn_set(warnings, std::array{variable_name(settings.allocator_settings)}, environment,
             ", so the workers' allocator keeps it instead of mptrain's " + settings.allocator_settings);
  }
  if (reserve && pinned) {
    warn_set(warnings, communication_variables, environment,
             ", so the communication library keeps it instead of the CPUs --reserve kept for it");
  }
  if (settings.passive_wait) {
    warn_set(warnings, wait_policy_variables, environment,
             ", so mptrain leaves the OpenMP runtimes' waiting to it; pools may hold more threads than "
             "their CPUs in this run, where threads that spin at a barrier hold up the ones they wait for");
  }
  if (settings.active_wait) {
    warn_set(warnings, std::array{std::string_view("OMP_WAIT_POLICY")}, environment,
             ", so mptrain leaves the OpenMP runtimes' waiting to it instead of --wait-policy active");
  }
  if (settings.thread_counts == UserThreadEnv::override) {
    const int given = child_threads(threads, settings.children);
    for (auto name : thread_count_variables) {
      warn_set(warnings, std::array{name}, environment,
               fmt::format("; the workers get {}={} (use --keep-env to keep yours)", name, given));
    }
  }
  if (settings.omp_bind != OmpBind::none && pinned) {
    warn_set(warnings, thread_placement_variables, environment,
             ", so mptrain leaves the placement of each worker's OpenMP threads to it (pass --omp-bind "
             "none to silence this, or unset it to get one thread per PU of each worker's CPUs)");
  }
  return warnings;
}

Result<PlaceNeed> place_need(int children, Descendants descendants) {
  // Unpinned too (--bind none, a CPU quota): the library caps the pools the programs size themselves to the plan's
  // threads, which are then fewer than the CPUs those pools see.
  if (children == 0) return descendants == Descendants::leave ? PlaceNeed::none : PlaceNeed::wanted;
  if (descendants == Descendants::leave) {
    return Error{
        "--children places the working children the workers start, --descendants leave leaves them "
        "alone; drop one of them"};
  }
  return PlaceNeed::required;
}

std::string unreachable_warning(const std::string& path, PreloadReach reach, int children) {
  if (reach == PreloadReach::reaches) return {};
  const std::string why =
      reach == PreloadReach::static_binary ? "is statically linked" : "is set-user-ID or set-group-ID";
  const std::string slices =
      children > 0
          ? fmt::format("; --children {} gives its children no slices: they float over the worker's CPUs", children)
          : "";
  return fmt::format(
      "{} {}, so mptrain's placement library cannot run inside it: each worker is pinned with its thread "
      "counts, but the processes it starts keep the CPUs they inherit and the pools it sizes itself are not "
      "capped{}",
      printable(path), why, slices);
}

std::string program_reach_warning(const std::string& program, int children) {
  const auto path = resolve_in_path(program);
  if (!path.ok()) return {};
  return unreachable_warning(*path, preload_reach_of_file(*path), children);
}

namespace {

std::string memory_option(MemoryMode mode) { return mode == MemoryMode::bind ? "--membind" : "--interleave"; }

}  // namespace

Result<MemoryPolicy> requested_memory(MemoryMode mode, std::string_view text, const CpuSet& online) {
  MemoryPolicy policy{mode, online, MemoryRefusal::fail};
  if (text == "all") return policy;
  auto nodes = CpuSet::parse(text);
  if (!nodes.ok() || nodes->empty()) {
    return Error{fmt::format("{} {}: not a list of NUMA nodes such as 0-1, or all", memory_option(mode), text)};
  }
  if (nodes->intersect(online) != *nodes) {
    return Error{
        fmt::format("{} {}: this machine's NUMA nodes are {}", memory_option(mode), text, online.to_short_string())};
  }
  policy.nodes = *nodes;
  return policy;
}

std::string numa_unreadable(MemoryMode mode, const Error& error) {
  return fmt::format(
      "{}: cannot read this machine's NUMA nodes ({}); leave out --membind and --interleave on a machine "
      "without NUMA support",
      memory_option(mode), error.message);
}

Result<StreamChoice> stream_choice_for(std::string_view name, const std::string& text, Streams fallback,
                                       int world_size) {
  if (text.empty()) return StreamChoice{fallback, {}};
  auto choice = parse_stream_choice(text);
  if (!choice.ok() || choice->per_rank.empty() || choice->per_rank.rbegin()->first < world_size) return choice;
  const auto ranks =
      world_size == 1 ? std::string("the only rank is 0") : fmt::format("the ranks are 0 to {}", world_size - 1);
  return Error{
      fmt::format("{} {} names rank {}, but {}; name only those", name, text, choice->per_rank.rbegin()->first, ranks)};
}

std::vector<WorkerSpec> dry_run_specs(std::vector<WorkerSpec> specs) {
  for (auto& spec : specs) spec.env = without_variables(spec.env, launcher_bound_variables);
  return specs;
}

std::vector<std::string> first_attempt_variables(const WorkerSpec& spec) {
  auto entries = spec.env;
  append(entries, attempt_environment(0));
  return entries;
}

namespace {

// The binding part of the command line: taskset, numactl or nothing.
std::vector<std::string> binding_words(const WorkerSpec& spec) {
  const bool pinned = !spec.cpus.empty();
  if (spec.memory.nodes.empty()) {
    if (!pinned) return {};
    return {"taskset", "-c", spec.cpus.to_string()};
  }
  std::vector<std::string> words = {"numactl"};
  if (pinned) words.push_back("--physcpubind=" + spec.cpus.to_string());
  words.push_back(fmt::format("--{}={}", to_string(spec.memory.mode), spec.memory.nodes.to_string()));
  return words;
}

}  // namespace

std::string command_line(const WorkerSpec& spec, const std::vector<std::string>& command,
                         const std::vector<std::string>& unset) {
  std::vector<std::string> words = binding_words(spec);
  words.emplace_back("env");
  for (const auto& name : unset) words.insert(words.end(), {"-u", name});
  append(words, first_attempt_variables(spec));
  words.insert(words.end(), command.begin(), command.end());
  return shell_command(words);
}

std::vector<std::string> child_slices_of(const WorkerSpec& spec) {
  constexpr std::string_view name = PLACE_VAR_SLICES "=";
  for (const auto& entry : spec.env) {
    if (!entry.starts_with(name)) continue;
    std::vector<std::string> slices;
    for (const auto slice : split(std::string_view(entry).substr(name.size()), ';')) {
      slices.push_back(short_cpu_list(slice));
    }
    return slices;
  }
  return {};
}

std::vector<PoolRecord> read_pool_records(const std::vector<PlaceTable>& tables) {
  std::vector<PoolRecord> records;
  for (std::size_t rank = 0; rank < tables.size(); ++rank) {
    auto processes = tables[rank].read();
    if (!processes.ok()) continue;
    for (auto& process : *processes) {
      if (process.asked > 0 || process.own_affinity) records.push_back({static_cast<int>(rank), std::move(process)});
    }
  }
  return records;
}

}  // namespace mptrain::procmgr
