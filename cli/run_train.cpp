// `mptrain run [placement] [training options]`: the built-in Hogwild
// training. Plan the workers, load the data and the model into shared
// memory, fork M pinned workers that update the model lock-free, show
// progress and each epoch's evaluation, then stop a diverged run, save,
// evaluate and report. The policy is hogwild/training.hpp's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/run.hpp"
#include "cluster/rendezvous.hpp"
#include "hogwild/checkpoint.hpp"
#include "hogwild/node_sync.hpp"
#include "hogwild/progress.hpp"
#include "hogwild/save.hpp"
#include "hogwild/training.hpp"
#include "monitor/run_monitor.hpp"
#include "procmgr/signals.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

// The training options: the run's configuration (its defaults are hogwild's),
// and --sync-every and --lr-scaling, which matter across nodes only.
struct TrainOptions {
  hogwild::TrainConfig config;
  std::vector<const CLI::Option*> node_options;
};

namespace {

// --lr's check: at least 0, and no larger than the float the kernels keep it in can hold.
CLI::Validator learning_rate_range() {
  constexpr double largest = std::numeric_limits<float>::max();
  return bounded(fmt::format("from 0 to {:.6g} (the largest float)", largest),
                 [](double rate) { return rate >= 0 && rate <= largest; });
}

// --data, then the hyper-parameters: --model, --epochs, --batch-size, --lr, --momentum and --seed.
void add_data_and_model(CLI::App& command, hogwild::TrainConfig& config) {
  auto& settings = config.settings;
  command.add_option("--data", config.data, "Directory of MNIST-format IDX files, plain or .gz")
      ->type_name("DIR")
      ->check(non_empty());
  add_word_option(command, "--model", settings.model, hogwild::model_names,
                  "Network: " + names_list(hogwild::model_names), &config.model_given)
      ->type_name("MODEL");
  command.add_option("--epochs", settings.epochs, "Passes over the training set per worker")
      ->transform(whole_number(0));
  command.add_option("--batch-size", settings.batch_size, "Samples per optimiser step")
      ->transform(whole_number(1, 1 << 20));
  command.add_option("--lr", settings.learning_rate, "SGD learning rate")->transform(learning_rate_range());
  command.add_option("--momentum", settings.momentum, "SGD momentum, each worker its own")->transform(from_to(0, 1));
  command.add_option("--seed", settings.seed, "Seed of initialisation, shuffles (seed + rank) and dropout")
      ->transform(whole_number(0, std::numeric_limits<long long>::max()));
}

// --save-model, --resume, --eval-every-epoch and --train-limit.
void add_run_files(CLI::App& command, hogwild::TrainConfig& config) {
  command
      .add_option("--save-model", config.save_model,
                  "Write the trained model to PATH (also when interrupted or a worker dies)")
      ->type_name("PATH")
      ->check(non_empty());
  command.add_option("--resume", config.resume, "Start from the model saved in PATH")
      ->type_name("PATH")
      ->check(non_empty());
  command.add_flag("--eval-every-epoch", config.eval_every_epoch, "Report test accuracy after every epoch");
  command.add_option("--train-limit", config.train_limit, "Use only the first N training samples (0: all)")
      ->type_name("N")
      ->transform(whole_number(0));
}

// --sync-every and --lr-scaling; returns them.
std::vector<const CLI::Option*> add_node_options(CLI::App& command, hogwild::TrainConfig& config) {
  auto* sync_every =
      command
          .add_option(
              "--sync-every", config.sync_every,
              "Across nodes (under mpirun): average the model with the other nodes every SECONDS while training")
          ->type_name("SECONDS")
          ->transform(from_to(0.01, 3600))
          ->default_str(fmt::format("{:g}", config.sync_every));
  auto* lr_scaling = add_word_option(command, "--lr-scaling", config.lr_scaling, hogwild::lr_scaling_names,
                                     "Across K nodes: linear (each node steps at K x --lr, so the averaged model "
                                     "moves as one machine's would) or none");
  return {sync_every, lr_scaling};
}

}  // namespace

std::shared_ptr<TrainOptions> add_train_options(CLI::App& command) {
  auto options = std::make_shared<TrainOptions>();
  const HelpGroup group(command, "Training (run without -- CMD)");
  add_data_and_model(command, options->config);
  add_run_files(command, options->config);
  options->node_options = add_node_options(command, options->config);
  return options;
}

namespace {

using Clock = std::chrono::steady_clock;

// MPI as the exchange of the nodes' averaging.
class MpiExchange final : public hogwild::NodeExchange {
 public:
  explicit MpiExchange(cluster::Mpi& mpi) : mpi_(mpi) {}
  int rank() const override { return mpi_.rank(); }
  int size() const override { return mpi_.size(); }
  Status broadcast(std::span<float> values, int root) override { return mpi_.broadcast(values, root); }
  Status sum(std::span<float> values) override { return mpi_.sum(values); }
  Status sum(std::span<double> values) override { return mpi_.sum(values); }

 private:
  cluster::Mpi& mpi_;
};

// What the phases of a run share, made in place (the averaging refers to the store and the exchange).
struct TrainRun {
  hogwild::TrainConfig config;
  NodePlan node_plan;
  std::optional<FileLock> save_lock;  // node 0 alone saves, so it alone holds --save-model's lock
  std::unique_ptr<cluster::Mpi> mpi;  // null on one node
  std::optional<MpiExchange> exchange;
  hogwild::Dataset train_data;
  hogwild::Dataset test_data;
  hogwild::ParameterStore store;
  hogwild::Resumed resumed;
  std::optional<hogwild::NodeSync> sync;
  bool leader() const { return node_plan.node.rank == 0; }
};

// The MPI session of built-in training across nodes; null on one node.
// Several nodes need an MPI launcher: only MPI can average their models.
std::unique_ptr<cluster::Mpi> start_nodes(const cluster::NodeIdentity& node) {
  if (node.count == 1) return nullptr;
  if (const auto refusal = cluster::training_nodes_refusal(node); !refusal.empty()) usage_failure("{}", refusal);
  return value_or_fail(cluster::start_mpi_for(node));
}

// Says that --sync-every and --lr-scaling, when given, do nothing on one node.
void warn_node_options(const TrainOptions& options) {
  std::vector<std::string> given;
  for (const CLI::Option* option : options.node_options) {
    if (option->count() > 0) given.push_back(option->get_name());
  }
  if (const auto warning = hogwild::node_options_warning(given); !warning.empty()) print_warning(warning);
}

// Phases 1 to 3, each followed by a look at the signals held during start-up.
// 1. Plan: M workers, T threads each, their CPUs on this node's share of its host.
// 2. Data: loaded once into shared read-only memory, inherited by every
//    worker; across nodes, each node trains its own shard.
// 3. The shared parameter store: initialised, or the checkpoint to resume
//    (across nodes, node 0's, so every node starts from the same model).
void prepare(const RunOptions& options, TrainRun& run, procmgr::PendingSignals& startup) {
  run.node_plan = plan_this_node(options.placement);
  const auto& node = run.node_plan.node;
  print_plan_notes(run.node_plan.plan);
  if (auto lock = run.leader() ? hogwild::lock_save_path(run.config) : std::nullopt) {
    run.save_lock.emplace(std::move(*lock));
  }
  hogwild::check_startup_signals(startup, "planning", print_note);
  run.mpi = start_nodes(node);
  if (!run.mpi) warn_node_options(*options.train);
  run.train_data = hogwild::load_split(run.config, hogwild::Split::train, run.config.train_limit);
  run.test_data = hogwild::load_split(run.config, hogwild::Split::test, 0);
  hogwild::check_startup_signals(startup, "loading the data", print_note);
  if (run.mpi) {
    const auto shard =
        value_or_fail(hogwild::node_shard(run.train_data.count, node.rank, node.count), exit_code::usage_error);
    run.config.settings.first_sample = shard.first;
    run.config.settings.sample_count = shard.count;
  }
  auto start_config = run.config;
  if (run.mpi && !run.leader()) start_config.resume.clear();  // node 0's model is broadcast below
  const auto layout = hogwild::model_layout(run.config.settings.model);
  run.store = hogwild::initial_store(start_config, layout, run.node_plan.plan.num_processes, run.resumed);
  if (run.mpi) {
    run.exchange.emplace(*run.mpi);
    run.sync.emplace(*run.exchange, run.store, run.config.sync_every);
    value_or_fail(run.sync->start());
  }
  hogwild::check_startup_signals(startup, "preparing the model", print_note);
}

// The worker function: trains as the rank of `spec`; exit code 1 when
// training diverged (the parent explains it) or a thread cannot be pinned.
int train_as_worker(const hogwild::TrainSettings& settings, const hogwild::Dataset& data,
                    hogwild::ParameterStore& store, int threads, const procmgr::WorkerSpec& spec) {
  const hogwild::WorkerSetup setup{spec.rank, threads, spec.cpus};
  const auto outcome = hogwild::train_worker(settings, data, store, setup);
  if (!outcome.ok()) {
    print_error(fmt::format("rank {}: {}", spec.rank, outcome.error().message));
    return exit_code::runtime_failure;
  }
  return outcome->diverged ? exit_code::runtime_failure : exit_code::success;
}

// How many of the epochs due evaluate_epochs evaluates in one call.
enum class Backlog { one, all };

// Evaluates with `threads` threads the next epoch completed since the last call (Backlog::one: a tick
// of the group, so that a signal is answered between two evaluations), or every one; prints and keeps
// each result.
void evaluate_epochs(hogwild::EpochEvaluator& evaluator, int threads, Backlog backlog, hogwild::Progress& progress,
                     hogwild::TrainReport& report) {
  while (auto done = evaluator.next(threads)) {
    progress.finish();
    print_note(fmt::format("mptrain: epoch {}: test accuracy {:.4f}, test loss {:.4f}\n", done->epoch,
                           done->result.accuracy, done->result.loss));
    report.epochs.push_back(*done);
    if (backlog == Backlog::one) return;
  }
}

// On SIGUSR1 while the workers train: node 0 saves a copy of the model and says so.
void checkpoint_on_signal(TrainRun& run, hogwild::Progress& progress, hogwild::TrainReport& report) {
  if (!run.leader()) return;
  progress.finish();
  const auto saved = hogwild::save_on_signal(run.config, run.store, run.resumed);
  if (saved.warning) {
    print_warning(saved.message);
  } else {
    print_note(fmt::format("mptrain: {}\n", saved.message));
  }
  if (saved.saved) ++report.signal_checkpoints;
}

// After this node's workers ended: a failed node ends the whole MPI job
// (the others are waiting in a round); else the last rounds of averaging,
// which leave the same model on every node.
void finish_nodes(TrainRun& run, const procmgr::GroupResult& result, hogwild::TrainReport& report) {
  if (!run.sync) return;
  if (result.failed_rank && result.forwarded_signal == 0) {
    print_error(
        fmt::format("this node ends the MPI job on every node: {}", failure_message(result, "training worker ")));
    run.mpi->abort(result.exit_code());
  }
  value_or_fail(run.sync->finish());
  report.sync_rounds = run.sync->rounds();
  report.sync_seconds = run.sync->seconds();
}

// 4. Forks the pinned workers and shows progress, the monitor's live
// verdict and each epoch's evaluation, and averages with the other nodes,
// until they end; a worker's failure is recorded in the report, not
// thrown, so the shared model can still be saved. SIGUSR1 saves a
// checkpoint while the workers go on; every other stop signal stops them
// (SIGTERM: after their batch) and is reported.
hogwild::TrainReport train(TrainRun& run, monitor::RunMonitor& monitor, hogwild::EpochEvaluator& evaluator,
                           hogwild::Progress& progress) {
  const auto& plan = run.node_plan.plan;
  auto settings = run.config.settings;
  settings.learning_rate =
      hogwild::node_learning_rate(settings.learning_rate, run.config.lr_scaling, run.node_plan.node.count);
  settings.seed = hogwild::node_seed(settings.seed, run.node_plan.node.rank, plan.num_processes);
  hogwild::TrainReport report;
  const int shard = settings.sample_count > 0 ? settings.sample_count : run.train_data.count;
  const auto total = static_cast<std::uint64_t>(plan.num_processes) * static_cast<std::uint64_t>(settings.epochs) *
                     static_cast<std::uint64_t>(shard);
  const auto start = Clock::now();
  procmgr::GroupOptions group;
  group.output = procmgr::Output::inherit;
  if (run.sync) group.tick = std::min(group.tick, run.sync->period());  // a round can come every --sync-every
  group.on_tick = [&](const std::vector<pid_t>& pids) {
    monitor.observe(pids);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    progress.update(hogwild::progress_figures(run.store, total, settings.epochs, elapsed, monitor.live_verdict()));
    evaluate_epochs(evaluator, 1, Backlog::one, progress, report);
    if (run.sync) value_or_fail(run.sync->tick());
  };
  group.pass_on.clear();
  group.notify = {SIGUSR1};
  group.on_signal = [&](int) { checkpoint_on_signal(run, progress, report); };
  group.stop_with = SIGTERM;
  group.worker_signals = hogwild::install_worker_signals;
  group.workers_start_processes = false;
  const auto worker = [&](const procmgr::WorkerSpec& spec) {
    return train_as_worker(settings, run.train_data, run.store, plan.threads_per_process, spec);
  };
  const auto result = value_or_fail(procmgr::run_group(worker_specs(plan), procmgr::ChildFunction(worker), group));
  progress.finish();
  finish_nodes(run, result, report);
  report.train_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (const auto& warning : result.warnings) print_warning(warning);
  hogwild::record_group(result, run.store, report);
  return report;
}

// Phases 5 to 7, on the report of `train`: the figures across nodes, then
// 5. a model whose loss became NaN or infinite is never saved (exit 1);
// 6. save, also after SIGINT/SIGTERM or a worker's death (the shared model
//    survives it), before anything else can go wrong; node 0 only;
// 7. evaluate the final model on the test set (node 0).
void finish_training(TrainRun& run, hogwild::EpochEvaluator& evaluator, hogwild::Progress& progress,
                     hogwild::TrainReport& report) {
  report.resumed = run.resumed;
  report.node_rank = run.node_plan.node.rank;
  report.node_count = run.node_plan.node.count;
  report.node_source = std::string(cluster::to_string(run.node_plan.node.source));
  if (run.sync) report.node_samples_per_second = value_or_fail(run.sync->gather(hogwild::samples_per_second(report)));
  report.model_checksum = hogwild::parameters_checksum(run.store.parameters());
  report.kernels = chosen_kernels().isa;
  hogwild::refuse_diverged(run.store, run.config);
  if (!run.leader()) return;
  hogwild::save_model(run.config, run.store, report);
  const int threads = std::max(1, run.node_plan.plan.usable_cpus);
  // A stop (SIGINT, SIGTERM…) does not wait for the epochs' evaluations still queued: the model is saved.
  if (report.interrupted_by == 0) {
    evaluate_epochs(evaluator, threads, Backlog::all, progress, report);
  } else if (evaluator.due()) {
    print_note(fmt::format("mptrain: {}: the evaluations of the epochs still queued are left out\n",
                           procmgr::signal_name(report.interrupted_by)));
  }
  hogwild::evaluate_final_model(run.config, run.store, run.test_data, threads, report);
}

}  // namespace

int run_training(const RunOptions& options) {
  // SIGUSR1 saves a checkpoint while the workers train (node 0) and is
  // ignored after, when the model is about to be saved anyway. During
  // start-up every stop signal and SIGUSR1 is held until the phase ends.
  ::signal(SIGUSR1, SIG_IGN);
  TrainRun run;
  run.config = options.train->config;
  {
    procmgr::PendingSignals startup;
    // --resume without --model trains the checkpoint's model (a --model that contradicts it is refused below).
    hogwild::take_checkpoint_model(run.config);
    // What would fail only after training (the kernels, the checkpoint's path,
    // room for the epoch snapshots) is found now, not after hours of training.
    chosen_kernels();
    hogwild::check_before_training(run.config, hogwild::model_layout(run.config.settings.model));
    prepare(options, run, startup);
  }  // from here the group's relay takes the signals
  monitor::RunMonitor monitor({run.node_plan.plan.usable_cpus, run.node_plan.plan.usable_cpu_list, {}});
  monitor.set_quiet(options.quiet);
  hogwild::Progress progress(print_note);
  hogwild::EpochEvaluator evaluator(run.store, run.test_data, run.config.settings.model);
  auto report = train(run, monitor, evaluator, progress);
  finish_training(run, evaluator, progress, report);
  const auto& plan = run.node_plan.plan;
  if (options.json) {
    print_json(hogwild::json_report(plan, run.config, report, run.train_data.count, monitor.report()));
  } else {
    print_report(hogwild::text_report(plan, run.config, report, workers_by_threads(plan), monitor.text()));
  }
  // 8. Exit with the worker's failure, the save's, or the signal's; else 3 when the verdict reaches --fail-on.
  const int code = hogwild::exit_status(run.config, report);
  if (code == exit_code::success && fails(monitor.diagnosis(), options.gate)) {
    throw Failure(exit_code::doctor_found, failed_gate_message(monitor.diagnosis(), options.gate));
  }
  return code;
}

}  // namespace mptrain::cli
