// `mptrain run [placement] -- CMD ARGS…`: launch M pinned copies of a program
// with torchrun-compatible variables, tag their output, stop the group when
// one fails, and report per worker.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/run.hpp"
#include "cli/run_monitor.hpp"
#include "cli/torchrun.hpp"
#include "cluster/torchrun.hpp"
#include "procmgr/allocator.hpp"
#include "procmgr/environment.hpp"
#include "procmgr/group.hpp"
#include "procmgr/port.hpp"
#include "procmgr/spawn.hpp"
#include "procmgr/tree_placement.hpp"
#include "util/failure.hpp"
#include "util/fd.hpp"
#include "util/fs.hpp"
#include "util/pinning.hpp"
#include "util/text.hpp"

namespace mptrain::cli {

// The launcher's own options, their defaults procmgr's.
struct LaunchOptions {
  std::string master_addr = procmgr::WorldInfo{}.master_addr;
  int master_port = 0;  // 0: a free port
  std::string log_dir;
  std::string redirects;       // --redirects SPEC as given; "" when not given
  std::string tee;             // --tee SPEC as given; "" when not given
  bool tag_output = true;      // --tag-output, the default
  bool no_tag_output = false;  // --no-tag-output
  bool timestamp_output = false;
  double grace_seconds = std::chrono::duration<double>(procmgr::GroupOptions{}.grace).count();
  int max_restarts = procmgr::GroupOptions{}.max_restarts;
  bool keep_env = false;
  std::string omp_bind = "close";
  int children = 0;                   // --children K; 0: the program's own processes are not slices
  std::string descendants = "place";  // --descendants place|leave
  bool keep_program_threads = false;  // --keep-program-threads: pools the program sizes are not capped
  std::string spread_threads = "on";  // --spread-threads on|off
  std::string allocator{procmgr::to_string(procmgr::Allocator::system)};
  std::string membind;
  std::string interleave;
  bool dry_run = false;
};

namespace {

// The longest --grace accepted: a week (much longer would overflow the clock's nanoseconds).
constexpr double max_grace_seconds = 7 * 86400;

// The options that place each worker's threads and memory, and the dry run.
void add_placement_launch_options(CLI::App& command, LaunchOptions& options, const char* group) {
  command
      .add_option("--omp-bind", options.omp_bind,
                  "Place each worker's OpenMP threads one per PU of its CPUs (OMP_PLACES, OMP_PROC_BIND=close, "
                  "KMP_AFFINITY), or leave them floating: " +
                      names_list(procmgr::omp_bind_names))
      ->check(one_of(procmgr::omp_bind_names))
      ->default_str("close")
      ->group(group);
  command
      .add_option("--children", options.children,
                  "Each worker's program starts K processes that do the work (torch.multiprocessing, a Pool, a "
                  "forking OpenMP program): its whole tree gets floor(T/K) threads, and each working child its own "
                  "slice of floor(T/K) of the worker's CPUs")
      ->transform(whole_number(1, procmgr::max_children))
      ->default_str("none")
      ->type_name("K")
      ->group(group);
  command
      .add_option("--descendants", options.descendants,
                  "Place the processes a worker's program starts (libmptrain_place.so, preloaded: none stays on one "
                  "CPU it inherited), or leave them with what they inherit: place or leave")
      ->check(one_of({"place", "leave"}))
      ->default_str("place")
      ->group(group);
  command
      .add_flag("--keep-program-threads", options.keep_program_threads,
                "Let a pool the program sizes itself (omp_set_num_threads, torch.set_num_threads, "
                "openblas_set_num_threads, a num_threads clause) hold more threads than its process's CPUs; by "
                "default such a request gets the CPU count. Its OpenMP runtimes then wait passively")
      ->group(group);
  command
      .add_option("--spread-threads", options.spread_threads,
                  "Give each busy thread that no runtime placed (OpenBLAS pthreads, oneTBB, std::thread) a PU of its "
                  "own in its process's CPUs, as the run's monitor finds them; threads that sleep keep all of them: "
                  "on or off")
      ->check(one_of({"on", "off"}))
      ->default_str("on")
      ->group(group);
  command
      .add_option("--allocator", options.allocator,
                  "Preload this memory allocator into the workers (LD_PRELOAD): jemalloc (Debian's libjemalloc2), "
                  "tcmalloc (libtcmalloc-minimal4) or default")
      ->check(one_of(procmgr::allocator_names))
      ->default_str("default")
      ->group(group);
  auto* membind = command
                      .add_option("--membind", options.membind,
                                  "Allocate every worker's memory only from these NUMA nodes (0-1, or all), as "
                                  "numactl --membind")
                      ->check(non_empty())
                      ->type_name("NODES")
                      ->group(group);
  auto* interleave = command
                         .add_option("--interleave", options.interleave,
                                     "Interleave every worker's memory over these NUMA nodes (0-1, or all), as "
                                     "numactl --interleave")
                         ->check(non_empty())
                         ->type_name("NODES")
                         ->group(group);
  membind->excludes(interleave);
  interleave->excludes(membind);
  command
      .add_flag("--dry-run", options.dry_run,
                "Print each rank's command line, CPUs, memory policy and the variables mptrain sets, and run nothing")
      ->group(group);
}

// A check that an option's value is a --redirects/--tee stream choice.
CLI::Validator stream_choice() {
  auto check = [](const std::string& text) -> std::string {
    auto choice = procmgr::parse_stream_choice(text);
    return choice.ok() ? std::string() : choice.error().message;
  };
  return CLI::Validator(std::move(check), "");
}

// A check, run once the whole command line is read, that refuses (usage
// error) option `name` when `log_dir` was not given.
std::function<void(const std::string&)> needs_log_dir(const CLI::Option* log_dir, std::string name) {
  return [log_dir, name = std::move(name)](const std::string&) {
    if (log_dir->count() == 0) {
      usage_failure("{} needs --log-dir DIR, the directory of the log files it sends streams to; add one", name);
    }
  };
}

// Registers --redirects, --tee, --tag-output and --timestamp-output, which
// say where workers' output goes and how its console lines start.
void add_output_options(CLI::App& command, LaunchOptions& options, const CLI::Option* log_dir, const char* group) {
  command
      .add_option("--redirects", options.redirects,
                  "Streams that go only to the rank's log file: 0 none, 1 stdout, 2 stderr, 3 both (or none, out, "
                  "err, all), or per rank as 0:3,1:err (others none); needs --log-dir (which alone means 3)")
      ->check(stream_choice())
      ->each(needs_log_dir(log_dir, "--redirects"))
      ->type_name("SPEC")
      ->group(group);
  command
      .add_option("--tee", options.tee,
                  "Streams that go to the rank's log file and to the console, written as for --redirects; a "
                  "stream named by both is teed; needs --log-dir")
      ->check(stream_choice())
      ->each(needs_log_dir(log_dir, "--tee"))
      ->type_name("SPEC")
      ->group(group);
  auto* tag =
      command.add_flag("--tag-output", options.tag_output, "Start each console line with \"[RANK] \" (the default)")
          ->group(group);
  command
      .add_flag("--no-tag-output", options.no_tag_output, "Print console lines without the rank (still whole lines)")
      ->excludes(tag)
      ->group(group);
  command
      .add_flag("--timestamp-output", options.timestamp_output,
                "Start each console line with the local time mptrain read it, as 2026-11-22T03:10:11.123")
      ->group(group);
}

}  // namespace

std::shared_ptr<LaunchOptions> add_launch_options(CLI::App& command) {
  auto options = std::make_shared<LaunchOptions>();
  const char* group = "Launcher (run -- CMD)";
  command.add_option("--master-addr", options->master_addr, "MASTER_ADDR for the workers")
      ->check(non_empty())
      ->type_name("ADDR")
      ->group(group);
  command.add_option("--master-port", options->master_port, "MASTER_PORT for the workers")
      ->transform(whole_number(1, 65535))
      ->type_name("PORT")
      ->default_str("a free port")
      ->group(group);
  const auto* log_dir = command
                            .add_option("--log-dir", options->log_dir,
                                        "Write each rank's output to DIR/rank-R.out and .err (with --max-restarts: to "
                                        "DIR/attempt-A/rank-R.*, and DIR/rank-R.* link to the latest attempt's)")
                            ->check(non_empty())
                            ->type_name("DIR")
                            ->group(group);
  add_output_options(command, *options, log_dir, group);
  command.add_option("--grace", options->grace_seconds, "Seconds between SIGTERM and SIGKILL when stopping")
      ->transform(bounded(fmt::format("from 0 to {:g} (a week)", max_grace_seconds),
                          [](double seconds) { return seconds >= 0 && seconds <= max_grace_seconds; }))
      ->type_name("SECONDS")
      ->group(group);
  command.add_option("--max-restarts", options->max_restarts, "Restart the whole group up to K times after a failure")
      ->transform(whole_number(0))
      ->type_name("K")
      ->group(group);
  command
      .add_flag("--keep-env", options->keep_env,
                fmt::format("Keep the thread-count variables already set in the environment ({})",
                            fmt::join(thread_count_variables, ", ")))
      ->group(group);
  add_placement_launch_options(command, *options, group);
  return options;
}

namespace {

// The rendezvous and thread settings every worker shares.
procmgr::WorldInfo world_info(const affinity::Plan& plan, const cluster::NodeIdentity& node,
                              const Rendezvous& rendezvous, const LaunchOptions& launch,
                              const TorchrunSettings* torchrun) {
  procmgr::WorldInfo world;
  if (torchrun != nullptr) {
    world.role = torchrun->role;
    world.run_id = torchrun->run_id;
  }
  world.local_size = plan.num_processes;
  world.node_rank = node.rank;
  world.nodes = node.count;
  world.threads = plan.threads_per_process;
  world.master_addr = rendezvous.master_addr;
  world.master_port = rendezvous.master_port;
  world.max_restarts = launch.max_restarts;
  if (world.master_port == 0) {
    world.master_port = value_or_fail(procmgr::find_free_port());
  } else if (node.rank == 0 && launch.master_port != 0 && procmgr::port_in_use(world.master_port)) {
    print_warning(
        fmt::format("--master-port {} is already in use on this machine; unless that is your own "
                    "rendezvous, rank 0 cannot listen there: pick another port or leave --master-port out",
                    world.master_port));
  }
  return world;
}

// Warns about thread-count variables the workers will not inherit.
void warn_overridden_variables(const std::vector<std::string>& environment, int threads) {
  for (const auto& name : procmgr::thread_variables_set(environment)) {
    std::string value;
    procmgr::find_variable(environment, name, &value);
    print_warning(
        fmt::format("{}={} is set; the workers get {}={} (use --keep-env to keep yours)", name, value, name, threads));
  }
}

// Warns when the user's own OpenMP placement replaces the one mptrain would set.
void warn_user_placement(const std::vector<std::string>& environment) {
  for (const auto& name : procmgr::placement_variables_set(environment)) {
    std::string value;
    procmgr::find_variable(environment, name, &value);
    print_warning(fmt::format(
        "{}={} is set, so mptrain leaves the placement of each worker's OpenMP threads to it (pass --omp-bind "
        "none to silence this, or unset it to get one thread per PU of each worker's CPUs)",
        name, value));
  }
}

// Warns when the user's own wait policy keeps spinning threads that mptrain would have wait passively.
void warn_user_wait_policy(const std::vector<std::string>& environment) {
  for (const auto& name : procmgr::wait_variables_set(environment)) {
    std::string value;
    procmgr::find_variable(environment, name, &value);
    print_warning(fmt::format(
        "{}={} is set, so mptrain leaves the OpenMP runtimes' waiting to it; pools may hold more threads than "
        "their CPUs in this run, where threads that spin at a barrier hold up the ones they wait for",
        name, value));
  }
}

// The memory policy --membind or --interleave asks for; nullopt when neither was given.
std::optional<procmgr::MemoryPolicy> requested_memory(const LaunchOptions& launch) {
  if (launch.membind.empty() && launch.interleave.empty()) return std::nullopt;
  const bool bind = !launch.membind.empty();
  const std::string option = bind ? "--membind" : "--interleave";
  const std::string& text = bind ? launch.membind : launch.interleave;
  auto online = read_online_nodes(FsRoot::from_env());
  if (!online.ok()) {
    runtime_failure(
        "{}: cannot read this machine's NUMA nodes ({}); leave out --membind and --interleave on a machine "
        "without NUMA support",
        option, online.error().message);
  }
  procmgr::MemoryPolicy policy{bind ? MemoryMode::bind : MemoryMode::interleave, *online, procmgr::MemoryRefusal::fail};
  if (text == "all") return policy;
  auto nodes = CpuSet::parse(text);
  if (!nodes.ok() || nodes->empty()) usage_failure("{} {}: not a list of NUMA nodes such as 0-1, or all", option, text);
  if (nodes->intersect(*online) != *nodes) {
    usage_failure("{} {}: this machine's NUMA nodes are {}", option, text, online->to_string());
  }
  policy.nodes = *nodes;
  return policy;
}

// What each worker gets besides its rank and CPUs: thread placement, allocator, memory policy.
struct WorkerSettings {
  procmgr::UserThreadEnv thread_counts = procmgr::UserThreadEnv::override;
  procmgr::OmpBind omp_bind = procmgr::OmpBind::close;
  std::string preload;  // the allocator library; "": none
  std::optional<procmgr::MemoryPolicy> memory;
  int children = 0;                 // K working children per worker (--children); 0: none
  std::string place_library;        // libmptrain_place.so; "": the workers' descendants are left alone
  std::vector<std::string> tables;  // per local rank, the path of its tree table (with the library)
  std::vector<int> table_fds;       // per local rank, its descriptor, which the worker inherits
  procmgr::ProgramThreads program_threads = procmgr::ProgramThreads::cap;
  bool passive_wait = false;  // pools may hold more threads than CPUs: OpenMP waits passively
};

WorkerSettings worker_settings(const LaunchOptions& launch) {
  WorkerSettings settings;
  settings.thread_counts = launch.keep_env ? procmgr::UserThreadEnv::keep : procmgr::UserThreadEnv::override;
  settings.omp_bind = value_named(procmgr::omp_bind_names, launch.omp_bind).value_or(procmgr::OmpBind::close);
  const auto allocator = value_or_fail(procmgr::parse_allocator(launch.allocator), exit_code::usage_error);
  settings.preload = value_or_fail(procmgr::find_allocator(allocator, FsRoot()));
  settings.memory = requested_memory(launch);
  settings.children = launch.children;
  settings.program_threads = launch.keep_program_threads ? procmgr::ProgramThreads::keep : procmgr::ProgramThreads::cap;
  return settings;
}

// The placement library for the workers' descendants: needed with
// --children; without, placement is on unless --descendants leave or
// nothing is pinned, and a missing library is a warning.
std::string place_library(const LaunchOptions& launch, const affinity::Plan& plan) {
  if (launch.children == 0 && (launch.descendants == "leave" || plan.bind == affinity::Bind::none)) return {};
  if (launch.children > 0 && launch.descendants == "leave") {
    usage_failure(
        "--children places the working children the workers start, --descendants leave leaves them "
        "alone; drop one of them");
  }
  auto library = procmgr::find_place_library();
  if (library.ok()) return library.value();
  if (launch.children > 0) throw Failure(exit_code::runtime_failure, library.error().message);
  print_warning(library.error().message + "; the processes the workers start keep the CPUs they inherit");
  return {};
}

// Says when the program is out of the placement library's reach (statically linked, set-user-ID or
// set-group-ID): mptrain pins its workers and sets their thread counts, but leaves the processes it
// starts and the pools it sizes itself alone.
void warn_unreachable_program(const std::vector<std::string>& command, int children) {
  const auto path = procmgr::resolve_in_path(command.front());
  if (!path.ok()) return;  // the launch itself says why it cannot run
  const auto reach = procmgr::preload_reach_of_file(*path);
  if (reach == procmgr::PreloadReach::reaches) return;
  const std::string why =
      reach == procmgr::PreloadReach::static_binary ? "is statically linked" : "is set-user-ID or set-group-ID";
  const std::string slices =
      children > 0
          ? fmt::format("; --children {} gives its children no slices: they float over the worker's CPUs", children)
          : "";
  print_warning(fmt::format(
      "{} {}, so mptrain's placement library cannot run inside it: each worker is pinned with its thread "
      "counts, but the processes it starts keep the CPUs they inherit and the pools it sizes itself are not "
      "capped{}",
      printable(*path), why, slices));
}

// Why `children` working children per worker do not fit `plan`: each needs
// a CPU of its own and a worker has T; a higher -t where N leaves room,
// else fewer workers, give each more.
std::string children_refusal(int children, const affinity::Plan& plan) {
  const int cpus = plan.threads_per_process;
  const int usable = plan.usable_cpus;
  const int workers = usable / children;  // the most workers that have `children` CPUs each
  std::string more;
  if (static_cast<long long>(plan.num_processes) * children <= usable) {
    more = fmt::format(", -t {} (the usable CPUs leave room for it)", children);
  } else if (workers >= 1 && workers < plan.num_processes) {
    more = fmt::format(", fewer workers (-n {}) so that each gets {} CPUs", workers, usable / workers);
  }
  return fmt::format(
      "--children {}: each worker has {} ({}, {}) and each working child needs one of its own; use "
      "--children {} or fewer{}, or --allow-oversubscribe",
      children, counted(cpus, "CPU"), counted(usable, "usable CPU"), counted(plan.num_processes, "worker"), cpus, more);
}

// Refuses more working children than a worker has threads, unless oversubscribing on purpose.
void check_children(const LaunchOptions& launch, const affinity::Plan& plan, bool allow_oversubscribe) {
  if (launch.children <= plan.threads_per_process || allow_oversubscribe) return;
  usage_failure("{}", children_refusal(launch.children, plan));
}

// One worker per placement, each with its torchrun-compatible environment,
// its threads' placement, the allocator and the memory policy.
std::vector<procmgr::WorkerSpec> launch_specs(const affinity::Plan& plan, const procmgr::WorldInfo& world,
                                              const WorkerSettings& settings,
                                              const std::vector<std::string>& environment) {
  auto specs = worker_specs(plan);
  // With --children the whole tree gets each child's thread count, and
  // the threads are placed by the library in each child's slice, not by
  // OMP_PLACES in the worker's main process (which does no work).
  procmgr::WorldInfo tree_world = world;
  tree_world.threads = procmgr::child_threads(world.threads, settings.children);
  for (auto& spec : specs) {
    const auto& cpus = plan.workers.at(static_cast<std::size_t>(spec.rank)).cpus;  // also with bind none
    spec.env = procmgr::worker_environment(spec.rank, cpus, tree_world, settings.thread_counts, environment);
    if (settings.children == 0) {
      for (auto& entry : procmgr::openmp_placement(spec.cpus, settings.omp_bind, environment)) {
        spec.env.push_back(std::move(entry));
      }
    }
    // LD_PRELOAD: the allocator, then the placement library, then the user's.
    std::string preload = settings.preload;
    if (!settings.place_library.empty()) preload += (preload.empty() ? "" : ":") + settings.place_library;
    for (auto& entry : procmgr::preload_environment(preload, environment)) spec.env.push_back(std::move(entry));
    if (!settings.place_library.empty()) {
      procmgr::TreePlacement tree;
      tree.cpus = cpus;
      tree.slices = procmgr::child_slices(cpus, world.threads, settings.children);
      tree.threads = world.threads;
      tree.threads_per_child = tree_world.threads;
      tree.table = settings.tables.at(static_cast<std::size_t>(spec.rank));
      spec.inherit_fds.push_back(settings.table_fds.at(static_cast<std::size_t>(spec.rank)));
      tree.launcher = static_cast<int>(::getpid());
      tree.program_threads = settings.program_threads;
      for (auto& entry : procmgr::tree_placement_environment(tree)) spec.env.push_back(std::move(entry));
    }
    if (settings.passive_wait) {
      for (auto& entry : procmgr::passive_wait_environment(environment)) spec.env.push_back(std::move(entry));
    }
    if (settings.memory) spec.memory = *settings.memory;
  }
  return specs;
}

// The stream choice option `name` was given as `text` ("" for none: `fallback`);
// a usage error when it names a rank the group of `world_size` lacks.
procmgr::StreamChoice stream_choice_for(std::string_view name, const std::string& text, procmgr::Streams fallback,
                                        int world_size) {
  if (text.empty()) return procmgr::StreamChoice{fallback, {}};
  auto choice = value_or_fail(procmgr::parse_stream_choice(text), exit_code::usage_error);
  if (!choice.per_rank.empty() && choice.per_rank.rbegin()->first >= world_size) {
    const auto ranks =
        world_size == 1 ? std::string("the only rank is 0") : fmt::format("the ranks are 0 to {}", world_size - 1);
    usage_failure("{} {} names rank {}, but {}; name only those", name, text, choice.per_rank.rbegin()->first, ranks);
  }
  return choice;
}

procmgr::GroupOptions group_options(const RunOptions& options, int world_size) {
  const auto& launch = *options.launch;
  procmgr::GroupOptions group;
  group.output = launch.log_dir.empty() ? procmgr::Output::tagged : procmgr::Output::log_dir;
  group.log_dir = launch.log_dir;
  group.tagged_stdout = options.json ? procmgr::TaggedStdout::to_stderr : procmgr::TaggedStdout::to_stdout;
  // Output: --log-dir alone sends both streams to files only; with --redirects
  // or --tee, only the streams they name go to files, as with torchrun.
  const bool log_dir_alone = launch.redirects.empty() && launch.tee.empty();
  group.redirects = stream_choice_for("--redirects", launch.redirects,
                                      log_dir_alone ? procmgr::Streams::all : procmgr::Streams::none, world_size);
  group.tee = stream_choice_for("--tee", launch.tee, procmgr::Streams::none, world_size);
  group.rank_tag = launch.no_tag_output ? procmgr::RankTag::off : procmgr::RankTag::on;
  group.timestamps = launch.timestamp_output ? procmgr::Timestamps::on : procmgr::Timestamps::off;
  group.grace = std::chrono::milliseconds(std::llround(launch.grace_seconds * 1000));
  group.max_restarts = launch.max_restarts;
  if (options.torchrun) {
    // torchrun's layout: RUN_DIR/attempt_A/LOCAL_RANK/ holds the streams -r/-t name and the error file.
    const auto& torchrun = *options.torchrun;
    group.output = procmgr::Output::log_dir;
    group.log_dir = torchrun.run_dir;
    group.log_layout = procmgr::LogLayout::torchrun;
    group.redirects = stream_choice_for("--redirects", torchrun.redirects, procmgr::Streams::none, world_size);
    group.tee = stream_choice_for("--tee", torchrun.tee, procmgr::Streams::none, world_size);
    if (!torchrun.local_ranks_filter.empty()) {
      group.console_ranks =
          value_or_fail(cluster::parse_local_ranks(torchrun.local_ranks_filter, world_size), exit_code::usage_error);
    }
    if (torchrun.remove_run_dir) group.remove_on_death = torchrun.run_dir.string();
    group.attempt_env = [dir = torchrun.run_dir](int rank, int restart) {
      return torchrun_attempt_environment(dir, rank, restart);
    };
  }
  return group;
}

// Why the workers' descendants were not placed: --descendants leave, or no placement library.
enum class Descendants { left, library_missing };

// Warns about processes the workers started that ran on one CPU of a
// worker's several: with mptrain's OMP_PROC_BIND, OpenMP binds a worker's
// main thread to its first PU, and a process started from that thread
// (torch.multiprocessing, a DataLoader worker) inherits that single CPU.
void warn_inherited_binding(const affinity::Plan& plan, const procmgr::GroupResult& result,
                            const monitor::Diagnosis& diagnosis, Descendants why) {
  std::vector<pid_t> workers;
  for (const auto& worker : result.workers) workers.push_back(worker.pid);
  for (const auto& process : diagnosis.processes) {
    const pid_t pid = process.pid;
    if (std::find(workers.begin(), workers.end(), pid) != workers.end()) continue;
    auto cpus = CpuSet::parse(process.cpus_allowed);
    if (!cpus.ok() || cpus->size() != 1) continue;
    for (const auto& placement : plan.workers) {
      if (placement.cpus.size() < 2 || !placement.cpus.contains(cpus->cpus().front())) continue;
      const std::string fix =
          why == Descendants::left
              ? "Without --descendants leave, mptrain gives such processes the worker's CPUs (--descendants "
                "place); --children K gives each working child CPUs of its own"
              : "mptrain could not give it the worker's CPUs: its placement library was not found (see the "
                "warning above); reinstall mptrain";
      print_warning(fmt::format(
          "pid {} ({}), started by rank {}, ran on CPU {} only though rank {} has CPUs {}: it inherited the CPU "
          "its parent's OpenMP main thread is bound to (OMP_PROC_BIND). {}",
          pid, printable(process.comm), placement.rank, cpus->to_string(), placement.rank, placement.cpus.to_string(),
          fix));
      break;
    }
  }
}

// With the workers' programs starting processes that each ran a thread pool
// (two threads or more that ran) and no --children: K per worker (rounded
// up) and the command that gives each its own CPUs; nullopt otherwise.
struct ChildrenAdvice {
  int children = 0;
  std::string command;
};

std::optional<ChildrenAdvice> children_advice(const affinity::Plan& plan, const procmgr::GroupResult& result,
                                              const monitor::Diagnosis& diagnosis, int children) {
  if (children > 0) return std::nullopt;
  std::vector<pid_t> workers;
  for (const auto& worker : result.workers) workers.push_back(worker.pid);
  int pools = 0;
  for (const auto& process : diagnosis.processes) {
    if (std::find(workers.begin(), workers.end(), process.pid) != workers.end()) continue;
    if (process.pool_threads >= 2) ++pools;
  }
  const int per_worker = (pools + plan.num_processes - 1) / plan.num_processes;
  if (per_worker < 2) return std::nullopt;
  // This run's own command line with --children K before the program.
  const auto words = FsRoot().read("/proc/self/cmdline");
  std::vector<std::string> argv;
  if (words.ok()) {
    for (const auto word : split(*words, '\0')) argv.emplace_back(word);
  }
  while (!argv.empty() && argv.back().empty()) argv.pop_back();
  auto dashes = std::find(argv.begin(), argv.end(), "--");
  if (dashes == argv.end()) return std::nullopt;
  argv.insert(dashes, {"--children", std::to_string(per_worker)});
  if (!argv.empty()) argv.front() = "mptrain";
  std::vector<std::string> quoted;
  for (const auto& word : argv) quoted.push_back(shell_quote(word));
  return ChildrenAdvice{per_worker, fmt::format("{}", fmt::join(quoted, " "))};
}

// What `loss` says, and what to do about it.
std::string output_loss_message(const procmgr::OutputLoss& loss) {
  return fmt::format(
      "{}; the worker ran on, but that output is lost: give it a destination that can take it "
      "(room on the disk, a reader that stays) and run again",
      loss.describe());
}

// Prints the first `count` of `losses` as errors.
void report_output_losses(const std::vector<procmgr::OutputLoss>& losses, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) print_error(output_loss_message(losses[i]));
}

void announce_restart(const procmgr::GroupResult& failed, int restart, int max_restarts) {
  const auto& worker = failed.workers.at(static_cast<std::size_t>(*failed.failed_rank));
  print_warning(fmt::format("{}; restarting the group ({} of {})", describe_worker(worker), restart, max_restarts));
}

// What the placement library recorded of each worker's tree: per rank, the processes.
using TreeRecords = std::vector<std::vector<procmgr::PlacedProcess>>;

TreeRecords read_tree_records(const std::vector<procmgr::PlaceTable>& tables) {
  TreeRecords records;
  for (const auto& table : tables) {
    auto processes = table.read();
    records.push_back(processes.ok() ? std::move(*processes) : std::vector<procmgr::PlacedProcess>{});
  }
  return records;
}

// Whether `process` belongs in the report of the cure: it asked for threads, or mptrain left it alone.
bool reported(const procmgr::PlacedProcess& process) { return process.asked > 0 || process.own_affinity; }

// The cure per process: "rank 0 pid 12 (python3, slice 1: CPUs 1): asked 2 threads
// (omp_set_num_threads), got 1".
std::string pools_text(const TreeRecords& records) {
  std::string text;
  for (std::size_t rank = 0; rank < records.size(); ++rank) {
    for (const auto& process : records[rank]) {
      if (!reported(process)) continue;
      const std::string where = process.slice >= 0
                                    ? fmt::format("slice {}: CPUs {}", process.slice, process.cpus.to_string())
                                    : fmt::format("CPUs {}", process.cpus.to_string());
      const std::string name = process.comm.empty() ? std::string("?") : printable(process.comm);
      if (process.own_affinity) {
        text += fmt::format("  rank {} pid {} ({}): set its own CPU affinity; left alone, its pools uncapped\n", rank,
                            process.pid, name);
        continue;
      }
      text += fmt::format("  rank {} pid {} ({}, {}): asked for {} ({}), got {}\n", rank, process.pid, name, where,
                          counted(process.asked, "thread"), process.call, process.got);
    }
  }
  return text.empty() ? text : "mptrain: the thread pools the programs sized themselves:\n" + text;
}

nlohmann::json pools_json(const TreeRecords& records) {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t rank = 0; rank < records.size(); ++rank) {
    for (const auto& process : records[rank]) {
      if (!reported(process)) continue;
      list.push_back({{"rank", rank},
                      {"pid", process.pid},
                      {"comm", process.comm},
                      {"slice", process.slice >= 0 ? nlohmann::json(process.slice) : nlohmann::json(nullptr)},
                      {"cpus", process.cpus.to_string()},
                      {"asked", process.asked},
                      {"got", process.got},
                      {"call", process.call},
                      {"own_affinity", process.own_affinity}});
    }
  }
  return list;
}

void print_summary(const affinity::Plan& plan, const procmgr::GroupResult& result, const RunMonitor& monitor,
                   const TreeRecords& records) {
  std::string text = fmt::format("mptrain: {}, bind {}{}\n", workers_by_threads(plan), affinity::to_string(plan.bind),
                                 result.restarts > 0 ? ", " + counted(result.restarts, "restart") : "");
  text += fmt::format("{:>4}  {:>7}  {:<16}  {:>8}  {:>8}  {}\n", "RANK", "PID", "CPUS", "WALL S", "CPU S", "STATUS");
  for (const auto& worker : result.workers) {
    text += fmt::format("{:>4}  {:>7}  {:<16}  {:>8.2f}  {:>8.2f}  {}\n", worker.rank, worker.pid,
                        plan.workers.at(static_cast<std::size_t>(worker.rank)).cpus.to_string(), worker.wall_seconds,
                        worker.cpu_seconds, worker.status.describe());
  }
  if (const auto spread = monitor.spread_threads(); spread && *spread > 0) {
    text += fmt::format("mptrain: gave {} that no runtime placed a PU of its own\n", counted(*spread, "busy thread"));
  }
  text += pools_text(records);
  text += monitor.text();
  print_note(text);
}

// mptrain's exit code after `result`: the failing worker's, else 1 when workers' output was lost, else 0.
int exit_code_of(const procmgr::GroupResult& result) {
  if (result.failed_rank) return result.exit_code();
  return result.output_losses.empty() ? exit_code::success : exit_code::runtime_failure;
}

// `losses` as JSON: [{rank, stream, destination, bytes, error}].
nlohmann::json output_losses_json(const std::vector<procmgr::OutputLoss>& losses) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& loss : losses) {
    list.push_back({{"rank", loss.rank},
                    {"stream", loss.stream == procmgr::Streams::err ? "stderr" : "stdout"},
                    {"destination", loss.destination},
                    {"bytes", loss.bytes},
                    {"error", std::strerror(loss.error)}});
  }
  return list;
}

nlohmann::json summary_json(const affinity::Plan& plan, const procmgr::GroupResult& result,
                            const std::vector<std::string>& command, const RunMonitor& monitor,
                            const std::optional<ChildrenAdvice>& advice, const TreeRecords& records) {
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& worker : result.workers) {
    workers.push_back({{"rank", worker.rank},
                       {"pid", worker.pid},
                       {"cpus", plan.workers.at(static_cast<std::size_t>(worker.rank)).cpus.to_string()},
                       {"wall_seconds", worker.wall_seconds},
                       {"cpu_seconds", worker.cpu_seconds},
                       {"exit_code", worker.status.shell_code()},
                       {"status", worker.status.describe()}});
  }
  nlohmann::json failed_rank = nullptr;
  if (result.failed_rank) failed_rank = *result.failed_rank;
  nlohmann::json forwarded = nullptr;
  if (result.forwarded_signal != 0) forwarded = procmgr::signal_name(result.forwarded_signal);
  return {{"command", command},
          {"num_processes", plan.num_processes},
          {"threads_per_process", plan.threads_per_process},
          {"bind", affinity::to_string(plan.bind)},
          {"workers", std::move(workers)},
          {"exit_code", exit_code_of(result)},
          {"failed_rank", failed_rank},
          {"output_lost", output_losses_json(result.output_losses)},
          {"forwarded_signal", forwarded},
          {"restarts", result.restarts},
          {"plan", plan_to_json(plan)},
          {"children_advice", advice ? nlohmann::json{{"children", advice->children}, {"command", advice->command}}
                                     : nlohmann::json(nullptr)},
          {"spread_threads", monitor.spread_threads() ? nlohmann::json(*monitor.spread_threads()) : nullptr},
          {"pools", pools_json(records)},
          {"monitor", monitor.report()}};
}

}  // namespace

int run_launcher(const RunOptions& options) {
  const auto& launch = *options.launch;
  // 1. Plan: M workers, T threads each, their CPUs on this node's share of its host.
  const auto node_plan = plan_this_node(options.placement);
  const auto& plan = node_plan.plan;
  const auto& node = node_plan.node;
  print_plan_notes(plan);
  // 2. The workers' environment, memory policy and allocator, built here before any fork.
  const auto environment = procmgr::current_environment();
  auto settings = worker_settings(launch);
  check_children(launch, plan, options.placement.allow_oversubscribe);
  settings.place_library = place_library(launch, plan);
  if (!settings.place_library.empty()) warn_unreachable_program(options.command, settings.children);
  std::vector<procmgr::PlaceTable> tables;  // the workers' tree tables, alive until the run ends
  if (!settings.place_library.empty()) {
    for (int rank = 0; rank < plan.num_processes; ++rank) {
      tables.push_back(value_or_fail(procmgr::PlaceTable::create(settings.children)));
      settings.tables.push_back(tables.back().path());
      settings.table_fds.push_back(tables.back().fd());
    }
  }
  settings.passive_wait = procmgr::pools_may_exceed_cpus(settings.program_threads, plan.oversubscribed,
                                                         plan.threads_per_process, settings.children);
  if (settings.passive_wait) warn_user_wait_policy(environment);
  if (settings.thread_counts == procmgr::UserThreadEnv::override) {
    warn_overridden_variables(environment, procmgr::child_threads(plan.threads_per_process, settings.children));
  }
  if (settings.omp_bind != procmgr::OmpBind::none && plan.bind != affinity::Bind::none) {
    warn_user_placement(environment);
  }
  auto group = group_options(options, plan.num_processes);  // checks the output options, also for a dry run
  group.tag_offset = node.rank * plan.num_processes;        // across nodes, lines carry the global rank
  // 3. Across nodes, agree on the rendezvous (over MPI under an MPI launcher,
  //    whose own variables the workers do not inherit).
  auto rendezvous = agree_rendezvous(node, plan.num_processes, options.placement.nodes.master_addr, launch.master_port);
  if (node.launched_by_mpi()) group.unset = procmgr::mpi_launcher_variables(environment);
  const auto world = world_info(plan, node, rendezvous, launch, options.torchrun.get());
  auto specs = launch_specs(plan, world, settings, environment);
  if (launch.dry_run) {
    for (auto& spec : specs) spec.env = procmgr::without_variables(spec.env, procmgr::launcher_bound_variables);
    if (options.torchrun) {  // the first attempt's error files, named but not created
      for (auto& spec : specs) {
        const auto file = torchrun_error_file(options.torchrun->run_dir, spec.rank, 0);
        spec.env.push_back("TORCHELASTIC_ERROR_FILE=" + file.string());
      }
    }
    return print_dry_run(plan, specs, options.command, group.unset, options.json);
  }
  // 4. Spawn, supervise, reap (restarting the group when asked), while the
  //    monitor watches the workers' trees and says when its verdict changes.
  const bool spread = launch.spread_threads == "on" && plan.bind != affinity::Bind::none &&
                      settings.omp_bind == procmgr::OmpBind::close;
  const monitor::Launch running{true, plan.num_processes, settings.children,
                                settings.program_threads == procmgr::ProgramThreads::keep};
  RunMonitor monitor(plan, spread ? SpreadThreads::on : SpreadThreads::off, running);
  monitor.set_quiet(options.quiet);
  group.on_tick = [&monitor](const std::vector<pid_t>& pids) {
    monitor.observe(pids);
    const auto change = monitor.verdict_change();
    if (change.message.empty()) return;
    // Good news is no warning: scripts that look for warnings must not trip on it.
    if (change.recovered) {
      print_note("mptrain: " + change.message + "\n");
    } else {
      print_warning(change.message);
    }
  };
  group.on_restart = [&](const procmgr::GroupResult& failed, int restart) {
    announce_restart(failed, restart, launch.max_restarts);
  };
  const auto result = value_or_fail(procmgr::run_group(specs, procmgr::Program{options.command}, group));
  // 5. Report, and exit with the failing worker's code; a failed node ends
  //    the whole MPI job, and a node the job tore down skips MPI_Finalize.
  for (const auto& warning : result.warnings) print_warning(warning);
  const auto advice = children_advice(plan, result, monitor.diagnosis(), settings.children);
  const auto records = read_tree_records(tables);
  std::vector<TorchrunFailure> torchrun_failed;
  if (options.torchrun) torchrun_failed = torchrun_failures(result, *options.torchrun, node.rank);
  if (options.json) {
    auto summary = summary_json(plan, result, options.command, monitor, advice, records);
    if (options.torchrun) {
      summary["run_id"] = options.torchrun->run_id;
      summary["log_dir"] = options.torchrun->remove_run_dir ? nlohmann::json(nullptr)
                                                            : nlohmann::json(options.torchrun->run_dir.string());
      summary.update(torchrun_failures_json(torchrun_failed));
    }
    print_json(summary);
  } else {
    print_summary(plan, result, monitor, records);
  }
  if (advice) {
    print_note(
        fmt::format("mptrain: each worker's program started {} processes that each ran a thread pool; give "
                    "each its own CPUs and floor(T/K) threads with:\n  {}",
                    advice->children, advice->command));
  }
  if (settings.omp_bind == procmgr::OmpBind::close && plan.bind != affinity::Bind::none &&
      settings.place_library.empty()) {
    warn_inherited_binding(plan, result, monitor.diagnosis(),
                           launch.descendants == "leave" ? Descendants::left : Descendants::library_missing);
  }
  if (rendezvous.mpi && result.forwarded_signal == 0 && result.failed_rank) {
    print_error(fmt::format("node {} ends the MPI job on every node: {}", node.rank, failure_message(result)));
    rendezvous.mpi->abort(result.exit_code());
  }
  std::string why;
  if (rendezvous.mpi && result.forwarded_signal != 0) {
    (void)rendezvous.mpi.release();  // the job is ending: no MPI_Finalize, which would wait for the others
    why = " (the MPI launcher stops every node when one fails or the job is cancelled)";
  }
  if (result.failed_rank) {
    if (!torchrun_failed.empty()) print_note(torchrun_summary(torchrun_failed, *options.torchrun));
    report_output_losses(result.output_losses, result.output_losses.size());
    const std::string hint = options.torchrun ? interpreter_hint(result, *options.torchrun) : "";
    throw Failure(result.exit_code(), failure_message(result) + why + hint);
  }
  if (!result.output_losses.empty()) {
    // The workers succeeded but some of their output is lost: exit 1, naming the last loss.
    report_output_losses(result.output_losses, result.output_losses.size() - 1);
    throw Failure(exit_code::runtime_failure, output_loss_message(result.output_losses.back()));
  }
  if (fails(monitor.diagnosis(), options.gate)) {
    throw Failure(exit_code::doctor_found, failed_gate_message(monitor.diagnosis(), options.gate));
  }
  return exit_code::success;
}

}  // namespace mptrain::cli
