// `mptrain run [placement] -- CMD ARGS…`: launch M pinned copies of a program
// with torchrun-compatible variables, tag their output, stop the group when
// one fails, and report per worker. What each worker gets is procmgr's
// (procmgr/launch.hpp), the advice on its diagnosis monitor's (monitor/advice.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <optional>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/run.hpp"
#include "cluster/rendezvous.hpp"
#include "cluster/torchrun.hpp"
#include "cluster/torchrun_failures.hpp"
#include "cluster/torchrun_files.hpp"
#include "launch/decide.hpp"
#include "launch/facts.hpp"
#include "launch/outcome.hpp"
#include "launch/report.hpp"
#include "launch/request.hpp"
#include "launch/sharing.hpp"
#include "monitor/advice.hpp"
#include "monitor/run_monitor.hpp"
#include "procmgr/allocator.hpp"
#include "procmgr/launch_report.hpp"
#include "procmgr/port.hpp"
#include "util/failure.hpp"
#include "util/fs.hpp"
#include "util/pinning.hpp"
#include "util/text.hpp"

namespace mptrain::cli {

namespace {

// The longest --grace accepted: a week (much longer would overflow the clock's nanoseconds).
constexpr double max_grace_seconds = 7 * 86400;

// The options that place each worker's threads and the processes its program starts.
void add_thread_launch_options(CLI::App& command, launch::Request& options) {
  add_word_option(command, "--omp-bind", options.omp_bind, procmgr::omp_bind_names,
                  "Place each worker's OpenMP threads one per PU of its CPUs (OMP_PLACES, OMP_PROC_BIND=close, "
                  "KMP_AFFINITY), or leave them floating: " +
                      names_list(procmgr::omp_bind_names));
  add_word_option(command, "--wait-policy", options.wait_policy, procmgr::wait_policy_names,
                  "How the workers' OpenMP threads wait: passive (OMP_WAIT_POLICY=passive, KMP_BLOCKTIME=0), active "
                  "(spinning) or auto (passive where pools may hold more threads than their CPUs)");
  command
      .add_option("--children", options.children,
                  "Each worker's program starts K processes that do the work (torch.multiprocessing, a Pool, a "
                  "forking OpenMP program): its whole tree gets floor(T/K) threads, and each working child its own "
                  "slice of floor(T/K) of the worker's CPUs")
      ->transform(whole_number(1, procmgr::max_children))
      ->default_str("none")
      ->type_name("K");
  add_word_option(command, "--descendants", options.descendants, procmgr::descendants_names,
                  "Place the processes a worker's program starts (libmptrain_place.so, preloaded: none stays on one "
                  "CPU it inherited), or leave them with what they inherit: " +
                      names_list(procmgr::descendants_names));
  command.add_flag("--keep-program-threads", options.keep_program_threads,
                   "Let a pool the program sizes itself (omp_set_num_threads, torch.set_num_threads, "
                   "openblas_set_num_threads) hold more threads than its process's CPUs; by "
                   "default such a request gets the CPU count. Its OpenMP runtimes then wait passively");
  add_word_option(command, "--spread-threads", options.spread_threads, monitor::spread_threads_names,
                  "Give each busy thread that no runtime placed (OpenBLAS pthreads, oneTBB, std::thread) a PU of its "
                  "own in its process's CPUs, as the run's monitor finds them; threads that sleep keep all of them: " +
                      names_list(monitor::spread_threads_names));
}

// The options that place each worker's memory, and the dry run.
void add_memory_launch_options(CLI::App& command, launch::Request& options) {
  add_word_option(command, "--allocator", options.allocator, procmgr::allocator_names,
                  "Preload this memory allocator into the workers (LD_PRELOAD): jemalloc (Debian's libjemalloc2), "
                  "tcmalloc (libtcmalloc-minimal4) or default");
  const auto nodes = [&](const char* name, std::string& target, const char* how) {
    return command.add_option(name, target, fmt::format("{} (0-1, or all), as numactl {}", how, name))
        ->check(non_empty())
        ->type_name("NODES");
  };
  auto* membind = nodes("--membind", options.membind, "Allocate every worker's memory only from these NUMA nodes");
  auto* interleave =
      nodes("--interleave", options.interleave, "Interleave every worker's memory over these NUMA nodes");
  membind->excludes(interleave);
  interleave->excludes(membind);
  command.add_flag(
      "--dry-run", options.dry_run,
      "Print each rank's command line, CPUs, memory policy and the variables mptrain sets, and run nothing");
}

// Registers --redirects, --tee, --tag-output and --timestamp-output, which
// say where workers' output goes and how its console lines start; the first
// two are refused (usage error) without `log_dir`.
void add_output_options(CLI::App& command, launch::Request& options, const CLI::Option* log_dir) {
  const auto streams = [&](std::string name, std::string& target, const char* help) {
    const auto needs_log_dir = [log_dir, name](const std::string&) {
      if (log_dir->count() > 0) return;
      usage_failure("{} needs --log-dir DIR, the directory of the log files it sends streams to; add one", name);
    };
    command.add_option(name, target, help)
        ->check(parsed_by(procmgr::parse_stream_choice))
        ->each(needs_log_dir)
        ->type_name("SPEC");
  };
  streams("--redirects", options.redirects,
          "Streams that go only to the rank's log file: 0 none, 1 stdout, 2 stderr, 3 both (or none, out, err, all), "
          "or per rank as 0:3,1:err (others none); needs --log-dir (which alone means 3)");
  streams("--tee", options.tee,
          "Streams that go to the rank's log file and to the console, written as for --redirects; a stream named by "
          "both is teed; needs --log-dir");
  auto* tag =
      command.add_flag("--tag-output", options.tag_output, "Start each console line with \"[RANK] \" (the default)");
  command
      .add_flag("--no-tag-output", options.no_tag_output, "Print console lines without the rank (still whole lines)")
      ->excludes(tag);
  command.add_flag("--timestamp-output", options.timestamp_output,
                   "Start each console line with the local time mptrain read it, as 2026-11-22T03:10:11.123");
}
}  // namespace

std::shared_ptr<launch::Request> add_launch_options(CLI::App& command) {
  auto options = std::make_shared<launch::Request>();
  const HelpGroup group(command, "Launcher (run -- CMD)");
  command.add_option("--master-addr", options->master_addr, "MASTER_ADDR for the workers")
      ->check(non_empty())
      ->type_name("ADDR");
  command.add_option("--master-port", options->master_port, "MASTER_PORT for the workers")
      ->transform(whole_number(1, 65535))
      ->type_name("PORT")
      ->default_str("a free port");
  const auto* log_dir = command
                            .add_option("--log-dir", options->log_dir,
                                        "Write each rank's output to DIR/rank-R.out and .err (with --max-restarts: to "
                                        "DIR/attempt-A/rank-R.*, and DIR/rank-R.* link to the latest attempt's)")
                            ->check(non_empty())
                            ->type_name("DIR");
  add_output_options(command, *options, log_dir);
  command.add_option("--grace", options->grace_seconds, "Seconds between SIGTERM and SIGKILL when stopping")
      ->transform(bounded(fmt::format("from 0 to {:g} (a week)", max_grace_seconds),
                          [](double seconds) { return seconds >= 0 && seconds <= max_grace_seconds; }))
      ->type_name("SECONDS");
  command.add_option("--max-restarts", options->max_restarts, "Restart the whole group up to K times after a failure")
      ->transform(whole_number(0))
      ->type_name("K");
  command.add_flag("--keep-env", options->keep_env,
                   fmt::format("Keep the thread-count variables already set in the environment ({})",
                               fmt::join(thread_count_variables, ", ")));
  add_thread_launch_options(command, *options);
  add_memory_launch_options(command, *options);
  return options;
}

namespace {

// The rendezvous and thread settings every worker shares.
procmgr::WorldInfo world_info(const affinity::Plan& plan, const cluster::NodeIdentity& node,
                              const cluster::Rendezvous& rendezvous, const launch::Request& launch) {
  procmgr::WorldInfo world;
  if (launch.torchrun) {
    world.role = launch.torchrun->role;
    world.run_id = launch.torchrun->run_id;
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

using LaunchReport = launch::Report;

// Prints `report` as text or, with --json, as one document (with torchrun's keys and `failures`).
void print_launch_report(const RunOptions& options, const LaunchReport& report,
                         const std::vector<cluster::TorchrunFailure>& failures) {
  if (!options.json) return print_note(launch::report_text(report));
  print_json(launch::report_json(report, options.command, options.launch->torchrun.get(), failures));
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
    if (!options.launch->torchrun) break;
    spec.env.push_back(
        cluster::error_file_variable(cluster::torchrun_error_file(options.launch->torchrun->run_dir, spec.rank, 0)));
  }
  return print_dry_run(plan, specs, options.command, unset, options.json,
                       options.launch->torchrun ? "mptrain torchrun" : "mptrain run");
}

// Has `group` feed `monitor` the workers' pids on each tick, saying when its verdict changes, and announce restarts.
void watch_group(procmgr::GroupOptions& group, monitor::RunMonitor& monitor, int max_restarts) {
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
  for (const auto& warning : launch::unplaced_warnings(report, settings, asked)) print_warning(warning);
}

// Ends the launch of node `node_rank` after `report` as launch::outcome decides: the failed worker's code (a failed
// node ends the whole MPI job, and a node the job tore down skips MPI_Finalize), 1 for lost output, 3 for a failed
// --fail-on gate.
int finish(const RunOptions& options, const LaunchReport& report, cluster::Rendezvous& rendezvous, int node_rank,
           const std::vector<cluster::TorchrunFailure>& torchrun_failed) {
  const auto& result = report.result;
  const auto* torchrun = options.launch->torchrun.get();
  launch::Ending ending{rendezvous.mpi != nullptr, node_rank, ""};
  if (result.failed_rank && torchrun != nullptr)
    ending.hint = cluster::interpreter_hint(result, torchrun->interpreter, current_environment());
  const auto end = launch::outcome(result, report.monitor.diagnosis(), options.gate, ending);
  if (end.mpi == launch::MpiEnd::abort_job) {
    print_error(end.mpi_message);
    rendezvous.mpi->abort(result.exit_code());
  }
  if (end.mpi == launch::MpiEnd::skip_finalize) (void)rendezvous.mpi.release();  // MPI_Finalize would wait
  if (result.failed_rank && !torchrun_failed.empty())
    print_note(cluster::torchrun_summary(torchrun_failed, torchrun->program, torchrun->run_id));
  report_output_losses(result.output_losses, end.losses_shown);
  if (end.exit_code != exit_code::success) throw Failure(end.exit_code, end.message);
  return exit_code::success;
}

}  // namespace

int run_launcher(const RunOptions& options) {
  // The options run's modes share, taken into the request.
  auto request = *options.launch;
  request.json = options.json;
  request.allow_oversubscribe = options.placement.allow_oversubscribe;
  // 1. Plan: M workers, T threads each, their CPUs on this node's share of its host, less what the other
  //    live runs hold (read, planned and recorded under the records' lock: launch/sharing.hpp).
  std::string unshared;
  auto claim = launch::MachineClaim::for_node(read_node_identity(options.placement.nodes), runs_directory(), unshared);
  if (!unshared.empty()) print_warning(unshared);
  // Ctrl-C while it waits for free CPUs (or settles among runs started with it) stops it as a signal would,
  // its record removed; from the group's start the group's relay takes the signals.
  const auto node_plan = [&] {
    procmgr::PendingSignals held;
    return plan_this_node(options.placement, claim, !request.dry_run, options.command, &held);
  }();
  const auto& plan = node_plan.plan;
  const auto& node = node_plan.node;
  print_plan_notes(plan);
  // 2. What every worker gets and the group's options (launch/decide.hpp), and their tree tables, before any fork.
  const auto environment = procmgr::current_environment();
  auto decision = launch::decide(request, plan, launch::look_up(request, options.command), environment);
  if (decision.refusal) throw Failure(decision.refusal->exit_code, decision.refusal->message);
  for (const auto& warning : decision.warnings) print_warning(warning);
  // What this run holds, for the runs after it (not a dry run's: it holds nothing).
  std::string unrecorded;
  std::optional<RunRegistration> registration;
  if (!request.dry_run) registration = claim.record(plan, unrecorded);
  if (!unrecorded.empty()) print_warning(unrecorded);
  auto& settings = decision.settings;
  std::vector<procmgr::PlaceTable> tables;  // the workers' tree tables, alive until the run ends
  if (!settings.place_library.empty())
    tables = value_or_fail(procmgr::create_tree_tables(plan.num_processes, settings));
  auto& group = decision.group;
  group.tag_offset = node.rank * plan.num_processes;  // across nodes, lines carry the global rank
  // 3. Across nodes, agree on the rendezvous (over MPI under an MPI launcher,
  //    whose own variables the workers do not inherit).
  auto rendezvous =
      cluster::agree_rendezvous(node, plan.num_processes, {options.placement.nodes.master_addr, request.master_port});
  if (node.launched_by_mpi()) group.unset = procmgr::mpi_launcher_variables(environment);
  const auto world = world_info(plan, node, rendezvous, request);
  auto specs = procmgr::launch_specs(launch_layout(plan), world, settings, environment);
  if (request.dry_run) return dry_run(options, plan, std::move(specs), group.unset);
  // 4. Spawn, supervise, reap (restarting the group when asked), while the
  //    monitor watches the workers' trees and says when its verdict changes.
  const monitor::Launch inside{true, plan.num_processes, settings.children,
                               settings.program_threads == procmgr::ProgramThreads::keep};
  monitor::RunMonitor monitor({plan.usable_cpus, plan.usable_cpu_list, inside},
                              decision.spread ? monitor::SpreadThreads::on : monitor::SpreadThreads::off);
  monitor.set_detail(monitor_detail(options));
  monitor.watch_other_runs(launch::other_runs_reader(runs_directory()));
  watch_group(group, monitor, request.max_restarts);
  const auto result = value_or_fail(procmgr::run_group(specs, procmgr::Program{options.command}, group));
  // 5. Report, advise, and exit as launch/outcome.hpp decides.
  for (const auto& warning : result.warnings) print_warning(warning);
  const auto advice = monitor::children_advice(launch::launched_workers(plan, result), monitor.diagnosis(),
                                               settings.children, monitor::own_command_line());
  const LaunchReport report{plan, result, monitor, advice, procmgr::read_pool_records(tables), node};
  std::vector<cluster::TorchrunFailure> torchrun_failed;
  if (request.torchrun) torchrun_failed = cluster::torchrun_failures(result, request.torchrun->run_dir, node.rank);
  print_launch_report(options, report, torchrun_failed);
  print_advice(report, settings, request.descendants);
  return finish(options, report, rendezvous, node.rank, torchrun_failed);
}

}  // namespace mptrain::cli
