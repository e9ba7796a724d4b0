// `mptrain run [placement] -- CMD ARGS…`: launch M pinned copies of a program
// with torchrun-compatible variables, tag their output, stop the group when
// one fails, and report per worker. What each worker gets is procmgr's
// (procmgr/launch.hpp), the advice on its diagnosis monitor's (monitor/advice.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/run.hpp"
#include "cli/run_monitor.hpp"
#include "cli/torchrun.hpp"
#include "cluster/torchrun.hpp"
#include "monitor/advice.hpp"
#include "procmgr/allocator.hpp"
#include "procmgr/port.hpp"
#include "util/failure.hpp"
#include "util/fs.hpp"
#include "util/pinning.hpp"
#include "util/text.hpp"

namespace mptrain::cli {

// The launcher's own options, their defaults procmgr's and monitor's.
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
  procmgr::OmpBind omp_bind = procmgr::WorkerSettings{}.omp_bind;
  int children = 0;  // --children K; 0: the program's own processes are not slices
  procmgr::Descendants descendants = procmgr::Descendants::place;
  bool keep_program_threads = false;  // --keep-program-threads: pools the program sizes are not capped
  SpreadThreads spread_threads = SpreadThreads::on;
  procmgr::Allocator allocator = procmgr::Allocator::system;
  std::string membind;
  std::string interleave;
  bool dry_run = false;
};

namespace {

// The longest --grace accepted: a week (much longer would overflow the clock's nanoseconds).
constexpr double max_grace_seconds = 7 * 86400;

// Option `name`, a word of `table` stored in `target` as its enum; --help shows the words and the default.
template <class E, std::size_t N>
CLI::Option* add_word_option(CLI::App& command, const std::string& name, E& target,
                             const std::array<Named<E>, N>& table, const std::string& help) {
  const auto store = [&target, &table](const std::string& word) { target = value_named(table, word).value_or(target); };
  return command.add_option_function<std::string>(name, store, help)
      ->check(one_of(table))
      ->default_str(std::string(name_of(table, target)));
}

// The options that place each worker's threads and the processes its program starts.
void add_thread_launch_options(CLI::App& command, LaunchOptions& options, const char* group) {
  add_word_option(command, "--omp-bind", options.omp_bind, procmgr::omp_bind_names,
                  "Place each worker's OpenMP threads one per PU of its CPUs (OMP_PLACES, OMP_PROC_BIND=close, "
                  "KMP_AFFINITY), or leave them floating: " +
                      names_list(procmgr::omp_bind_names))
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
  add_word_option(command, "--descendants", options.descendants, procmgr::descendants_names,
                  "Place the processes a worker's program starts (libmptrain_place.so, preloaded: none stays on one "
                  "CPU it inherited), or leave them with what they inherit: " +
                      names_list(procmgr::descendants_names))
      ->group(group);
  command
      .add_flag("--keep-program-threads", options.keep_program_threads,
                "Let a pool the program sizes itself (omp_set_num_threads, torch.set_num_threads, "
                "openblas_set_num_threads, a num_threads clause) hold more threads than its process's CPUs; by "
                "default such a request gets the CPU count. Its OpenMP runtimes then wait passively")
      ->group(group);
  add_word_option(command, "--spread-threads", options.spread_threads, monitor::spread_threads_names,
                  "Give each busy thread that no runtime placed (OpenBLAS pthreads, oneTBB, std::thread) a PU of its "
                  "own in its process's CPUs, as the run's monitor finds them; threads that sleep keep all of them: " +
                      names_list(monitor::spread_threads_names))
      ->group(group);
}

// The options that place each worker's memory, and the dry run.
void add_memory_launch_options(CLI::App& command, LaunchOptions& options, const char* group) {
  add_word_option(command, "--allocator", options.allocator, procmgr::allocator_names,
                  "Preload this memory allocator into the workers (LD_PRELOAD): jemalloc (Debian's libjemalloc2), "
                  "tcmalloc (libtcmalloc-minimal4) or default")
      ->group(group);
  const auto nodes = [&](const char* name, std::string& target, const char* help) {
    return command.add_option(name, target, help)->check(non_empty())->type_name("NODES")->group(group);
  };
  auto* membind =
      nodes("--membind", options.membind,
            "Allocate every worker's memory only from these NUMA nodes (0-1, or all), as numactl --membind");
  auto* interleave = nodes("--interleave", options.interleave,
                           "Interleave every worker's memory over these NUMA nodes (0-1, or all), as numactl "
                           "--interleave");
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
  add_thread_launch_options(command, *options, group);
  add_memory_launch_options(command, *options, group);
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

// The memory policy --membind or --interleave asks for; nullopt when neither was given.
std::optional<procmgr::MemoryPolicy> requested_memory(const LaunchOptions& launch) {
  if (launch.membind.empty() && launch.interleave.empty()) return std::nullopt;
  const auto mode = launch.membind.empty() ? MemoryMode::interleave : MemoryMode::bind;
  auto online = read_online_nodes(FsRoot::from_env());
  if (!online.ok()) runtime_failure("{}", procmgr::numa_unreadable(mode, online.error()));
  const auto& text = mode == MemoryMode::bind ? launch.membind : launch.interleave;
  return value_or_fail(procmgr::requested_memory(mode, text, *online), exit_code::usage_error);
}

// The placement library for the workers' descendants ("": none); a missing one is a warning unless --children needs it.
std::string place_library(const LaunchOptions& launch, bool pinned) {
  const auto need =
      value_or_fail(procmgr::place_need(launch.children, launch.descendants, pinned), exit_code::usage_error);
  if (need == procmgr::PlaceNeed::none) return {};
  auto library = procmgr::find_place_library();
  if (library.ok()) return library.value();
  if (need == procmgr::PlaceNeed::required) throw Failure(exit_code::runtime_failure, library.error().message);
  print_warning(library.error().message + "; the processes the workers start keep the CPUs they inherit");
  return {};
}

// What every worker gets from the options (refusing what does not fit `plan`), with the tree tables in `tables`.
procmgr::WorkerSettings worker_settings(const RunOptions& options, const affinity::Plan& plan,
                                        std::vector<procmgr::PlaceTable>& tables) {
  const auto& launch = *options.launch;
  procmgr::WorkerSettings settings;
  settings.thread_counts = launch.keep_env ? procmgr::UserThreadEnv::keep : procmgr::UserThreadEnv::override;
  settings.omp_bind = launch.omp_bind;
  settings.preload = value_or_fail(procmgr::find_allocator(launch.allocator, FsRoot()));
  settings.memory = requested_memory(launch);
  settings.children = launch.children;
  settings.program_threads = launch.keep_program_threads ? procmgr::ProgramThreads::keep : procmgr::ProgramThreads::cap;
  settings.launcher = static_cast<int>(::getpid());
  const auto refusal =
      monitor::children_refusal(launch.children, plan.threads_per_process, plan.usable_cpus, plan.num_processes);
  if (!refusal.empty() && !options.placement.allow_oversubscribe) usage_failure("{}", refusal);
  settings.place_library = place_library(launch, plan.bind != affinity::Bind::none);
  if (!settings.place_library.empty()) {
    if (auto warning = procmgr::program_reach_warning(options.command.front(), settings.children); !warning.empty()) {
      print_warning(warning);
    }
    tables = value_or_fail(procmgr::create_tree_tables(plan.num_processes, settings));
  }
  settings.passive_wait = procmgr::pools_may_exceed_cpus(settings.program_threads, plan.oversubscribed,
                                                         plan.threads_per_process, settings.children);
  return settings;
}

// The stream choice of option `name`, its `text` "" for `fallback`.
procmgr::StreamChoice chosen_streams(std::string_view name, const std::string& text, procmgr::Streams fallback,
                                     int world_size) {
  return value_or_fail(procmgr::stream_choice_for(name, text, fallback, world_size), exit_code::usage_error);
}

// torchrun's layout: RUN_DIR/attempt_A/LOCAL_RANK/ holds the streams -r/-t name and the error file.
void use_torchrun_output(procmgr::GroupOptions& group, const TorchrunSettings& torchrun, int world_size) {
  group.output = procmgr::Output::log_dir;
  group.log_dir = torchrun.run_dir;
  group.log_layout = procmgr::LogLayout::torchrun;
  group.redirects = chosen_streams("--redirects", torchrun.redirects, procmgr::Streams::none, world_size);
  group.tee = chosen_streams("--tee", torchrun.tee, procmgr::Streams::none, world_size);
  if (!torchrun.local_ranks_filter.empty()) {
    group.console_ranks =
        value_or_fail(cluster::parse_local_ranks(torchrun.local_ranks_filter, world_size), exit_code::usage_error);
  }
  if (torchrun.remove_run_dir) group.remove_on_death = torchrun.run_dir.string();
  group.attempt_env = [dir = torchrun.run_dir](int rank, int restart) {
    return torchrun_attempt_environment(dir, rank, restart);
  };
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
  group.redirects = chosen_streams("--redirects", launch.redirects,
                                   log_dir_alone ? procmgr::Streams::all : procmgr::Streams::none, world_size);
  group.tee = chosen_streams("--tee", launch.tee, procmgr::Streams::none, world_size);
  group.rank_tag = launch.no_tag_output ? procmgr::RankTag::off : procmgr::RankTag::on;
  group.timestamps = launch.timestamp_output ? procmgr::Timestamps::on : procmgr::Timestamps::off;
  group.grace = std::chrono::milliseconds(std::llround(launch.grace_seconds * 1000));
  group.max_restarts = launch.max_restarts;
  if (options.torchrun) use_torchrun_output(group, *options.torchrun, world_size);
  return group;
}

// The workers of `result` with their pids and the CPUs `plan` gave them.
std::vector<monitor::LaunchedWorker> launched_workers(const affinity::Plan& plan, const procmgr::GroupResult& result) {
  std::vector<monitor::LaunchedWorker> workers;
  for (const auto& worker : result.workers) {
    workers.push_back({worker.rank, worker.pid, plan.workers.at(static_cast<std::size_t>(worker.rank)).cpus});
  }
  return workers;
}

// The cure per process: "rank 0 pid 12 (python3, slice 1: CPUs 1): asked 2 threads
// (omp_set_num_threads), got 1".
std::string pools_text(const std::vector<procmgr::PoolRecord>& records) {
  std::string text;
  for (const auto& [rank, process] : records) {
    const std::string name = process.comm.empty() ? std::string("?") : printable(process.comm);
    if (process.own_affinity) {
      text += fmt::format("  rank {} pid {} ({}): set its own CPU affinity; left alone, its pools uncapped\n", rank,
                          process.pid, name);
      continue;
    }
    const auto cpus = process.cpus.to_string();
    const auto where = process.slice >= 0 ? fmt::format("slice {}: CPUs {}", process.slice, cpus) : "CPUs " + cpus;
    text += fmt::format("  rank {} pid {} ({}, {}): asked for {} ({}), got {}\n", rank, process.pid, name, where,
                        counted(process.asked, "thread"), process.call, process.got);
  }
  return text.empty() ? text : "mptrain: the thread pools the programs sized themselves:\n" + text;
}

nlohmann::json pools_json(const std::vector<procmgr::PoolRecord>& records) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [rank, process] : records) {
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
  return list;
}

// What a finished launch reports: its result, the monitor's diagnosis and the advice and pools beside it.
struct LaunchReport {
  const affinity::Plan& plan;
  const procmgr::GroupResult& result;
  const RunMonitor& monitor;
  std::optional<monitor::ChildrenAdvice> advice;
  std::vector<procmgr::PoolRecord> pools;
};

void print_summary(const LaunchReport& report) {
  const auto& [plan, result, monitor, advice, pools] = report;
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
  print_note(text + pools_text(pools) + monitor.text());
}

// mptrain's exit code after `result`: the failing worker's, else 1 when workers' output was lost, else 0.
int exit_code_of(const procmgr::GroupResult& result) {
  if (result.failed_rank) return result.exit_code();
  return result.output_losses.empty() ? exit_code::success : exit_code::runtime_failure;
}

nlohmann::json summary_json(const LaunchReport& report, const std::vector<std::string>& command) {
  const auto& [plan, result, monitor, advice, pools] = report;
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
  nlohmann::json losses = nlohmann::json::array();
  for (const auto& loss : result.output_losses) {
    losses.push_back({{"rank", loss.rank},
                      {"stream", loss.stream == procmgr::Streams::err ? "stderr" : "stdout"},
                      {"destination", loss.destination},
                      {"bytes", loss.bytes},
                      {"error", std::strerror(loss.error)}});
  }
  const auto null_or = [](bool given, auto value) { return given ? nlohmann::json(value) : nlohmann::json(nullptr); };
  return {{"command", command},
          {"num_processes", plan.num_processes},
          {"threads_per_process", plan.threads_per_process},
          {"bind", affinity::to_string(plan.bind)},
          {"workers", std::move(workers)},
          {"exit_code", exit_code_of(result)},
          {"failed_rank", null_or(result.failed_rank.has_value(), result.failed_rank.value_or(0))},
          {"output_lost", std::move(losses)},
          {"forwarded_signal", null_or(result.forwarded_signal != 0, procmgr::signal_name(result.forwarded_signal))},
          {"restarts", result.restarts},
          {"plan", plan_to_json(plan)},
          {"children_advice", advice ? nlohmann::json{{"children", advice->children}, {"command", advice->command}}
                                     : nlohmann::json(nullptr)},
          {"spread_threads", null_or(monitor.spread_threads().has_value(), monitor.spread_threads().value_or(0))},
          {"pools", pools_json(pools)},
          {"monitor", monitor.report()}};
}

// Prints `report` as text or, with --json, as one document (with torchrun's keys and `failures`).
void print_launch_report(const RunOptions& options, const LaunchReport& report,
                         const std::vector<TorchrunFailure>& failures) {
  if (!options.json) return print_summary(report);
  auto summary = summary_json(report, options.command);
  if (options.torchrun) {
    summary["run_id"] = options.torchrun->run_id;
    summary["log_dir"] =
        options.torchrun->remove_run_dir ? nlohmann::json(nullptr) : nlohmann::json(options.torchrun->run_dir.string());
    summary.update(torchrun_failures_json(failures));
  }
  print_json(summary);
}

// Prints the first `count` of `losses` as errors.
void report_output_losses(const std::vector<procmgr::OutputLoss>& losses, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) print_error(procmgr::output_loss_message(losses[i]));
}

// Prints what a launch of `specs` would start instead of starting it; torchrun's first error files are named, not made.
int dry_run(const RunOptions& options, const affinity::Plan& plan, std::vector<procmgr::WorkerSpec> specs,
            const std::vector<std::string>& unset) {
  specs = procmgr::dry_run_specs(std::move(specs));
  for (auto& spec : specs) {
    if (!options.torchrun) break;
    const auto file = torchrun_error_file(options.torchrun->run_dir, spec.rank, 0);
    spec.env.push_back("TORCHELASTIC_ERROR_FILE=" + file.string());
  }
  return print_dry_run(plan, specs, options.command, unset, options.json);
}

// Has `group` feed `monitor` the workers' pids on each tick, saying when its verdict changes, and announce restarts.
void watch_group(procmgr::GroupOptions& group, RunMonitor& monitor, int max_restarts) {
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
  group.on_restart = [max_restarts](const procmgr::GroupResult& failed, int restart) {
    print_warning(procmgr::restart_message(failed, restart, max_restarts));
  };
}

// The advice after the report: --children K, and processes that inherited one CPU of a worker's several.
void print_advice(const LaunchReport& report, const procmgr::WorkerSettings& settings, procmgr::Descendants asked) {
  if (report.advice) print_note(monitor::children_note(*report.advice));
  if (settings.omp_bind != procmgr::OmpBind::close || report.plan.bind == affinity::Bind::none ||
      !settings.place_library.empty()) {
    return;
  }
  const auto why = asked == procmgr::Descendants::leave ? monitor::Unplaced::left : monitor::Unplaced::library_missing;
  const auto workers = launched_workers(report.plan, report.result);
  for (const auto& warning : monitor::inherited_binding_warnings(workers, report.monitor.diagnosis(), why)) {
    print_warning(warning);
  }
}

// Ends the launch of node `node_rank` after `report`: a failed worker's code (a failed node ends the whole MPI
// job, and a node the job tore down skips MPI_Finalize), 1 for lost output, 3 for a failed --fail-on gate.
int finish(const RunOptions& options, const LaunchReport& report, Rendezvous& rendezvous, int node_rank,
           const std::vector<TorchrunFailure>& torchrun_failed) {
  const auto& result = report.result;
  if (rendezvous.mpi && result.forwarded_signal == 0 && result.failed_rank) {
    print_error(fmt::format("node {} ends the MPI job on every node: {}", node_rank, failure_message(result)));
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
    throw Failure(exit_code::runtime_failure, procmgr::output_loss_message(result.output_losses.back()));
  }
  if (fails(report.monitor.diagnosis(), options.gate)) {
    throw Failure(exit_code::doctor_found, failed_gate_message(report.monitor.diagnosis(), options.gate));
  }
  return exit_code::success;
}

}  // namespace

int run_launcher(const RunOptions& options) {
  const auto& launch = *options.launch;
  // 1. Plan: M workers, T threads each, their CPUs on this node's share of its host.
  const auto node_plan = plan_this_node(options.placement);
  const auto& plan = node_plan.plan;
  const auto& node = node_plan.node;
  print_plan_notes(plan);
  // 2. What every worker gets, its tree tables and the group's options, built here before any fork.
  const auto environment = procmgr::current_environment();
  std::vector<procmgr::PlaceTable> tables;  // the workers' tree tables, alive until the run ends
  const auto settings = worker_settings(options, plan, tables);
  const bool pinned = plan.bind != affinity::Bind::none;
  for (const auto& warning : procmgr::environment_warnings(environment, settings, plan.threads_per_process, pinned)) {
    print_warning(warning);
  }
  auto group = group_options(options, plan.num_processes);  // checks the output options, also for a dry run
  group.tag_offset = node.rank * plan.num_processes;        // across nodes, lines carry the global rank
  // 3. Across nodes, agree on the rendezvous (over MPI under an MPI launcher,
  //    whose own variables the workers do not inherit).
  auto rendezvous = agree_rendezvous(node, plan.num_processes, options.placement.nodes.master_addr, launch.master_port);
  if (node.launched_by_mpi()) group.unset = procmgr::mpi_launcher_variables(environment);
  const auto world = world_info(plan, node, rendezvous, launch, options.torchrun.get());
  auto specs = procmgr::launch_specs(launch_layout(plan), world, settings, environment);
  if (launch.dry_run) return dry_run(options, plan, std::move(specs), group.unset);
  // 4. Spawn, supervise, reap (restarting the group when asked), while the
  //    monitor watches the workers' trees and says when its verdict changes.
  const bool spread =
      launch.spread_threads == SpreadThreads::on && pinned && settings.omp_bind == procmgr::OmpBind::close;
  RunMonitor monitor(
      plan, spread ? SpreadThreads::on : SpreadThreads::off,
      {true, plan.num_processes, settings.children, settings.program_threads == procmgr::ProgramThreads::keep});
  monitor.set_quiet(options.quiet);
  watch_group(group, monitor, launch.max_restarts);
  const auto result = value_or_fail(procmgr::run_group(specs, procmgr::Program{options.command}, group));
  // 5. Report, advise, and exit with the failing worker's code.
  for (const auto& warning : result.warnings) print_warning(warning);
  const auto advice = monitor::children_advice(launched_workers(plan, result), monitor.diagnosis(), settings.children,
                                               monitor::own_command_line());
  const LaunchReport report{plan, result, monitor, advice, procmgr::read_pool_records(tables)};
  std::vector<TorchrunFailure> torchrun_failed;
  if (options.torchrun) torchrun_failed = torchrun_failures(result, *options.torchrun, node.rank);
  print_launch_report(options, report, torchrun_failed);
  print_advice(report, settings, launch.descendants);
  return finish(options, report, rendezvous, node.rank, torchrun_failed);
}

}  // namespace mptrain::cli
