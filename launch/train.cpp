#include "launch/train.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>

#include "launch/layout.hpp"
#include "procmgr/group.hpp"
#include "procmgr/outcome.hpp"
#include "util/console.hpp"
#include "util/failure.hpp"

namespace mptrain::launch {

namespace {

using Clock = std::chrono::steady_clock;

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
    progress.clear();
    print_note(fmt::format("mptrain: epoch {}: test accuracy {:.4f}, test loss {:.4f}\n", done->epoch,
                           done->result.accuracy, done->result.loss));
    report.epochs.push_back(*done);
    if (backlog == Backlog::one) return;
  }
}

// On SIGUSR1 while the workers train: node 0 saves a copy of the model and says so.
void checkpoint_on_signal(TrainRun& run, hogwild::Progress& progress, hogwild::TrainReport& report) {
  if (!run.leader()) return;
  progress.clear();
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

}  // namespace

std::unique_ptr<cluster::Mpi> start_nodes(const cluster::NodeIdentity& node) {
  if (node.count == 1) return nullptr;
  if (const auto refusal = cluster::training_nodes_refusal(node); !refusal.empty()) usage_failure("{}", refusal);
  return value_or_fail(cluster::start_mpi_for(node));
}

void load(TrainRun& run, procmgr::PendingSignals& startup) {
  const auto& node = run.node;
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
  run.store = hogwild::initial_store(start_config, layout, run.plan.num_processes, run.resumed);
  if (run.mpi) {
    run.exchange.emplace(*run.mpi);
    run.sync.emplace(*run.exchange, run.store, run.config.sync_every);
    value_or_fail(run.sync->start());
  }
  hogwild::check_startup_signals(startup, "preparing the model", print_note);
}

// 4. Forks the pinned workers and shows progress, the monitor's live
// verdict and each epoch's evaluation, and averages with the other nodes,
// until they end; a worker's failure is recorded in the report, not
// thrown, so the shared model can still be saved. SIGUSR1 saves a
// checkpoint while the workers go on; every other stop signal stops them
// (SIGTERM: after their batch) and is reported.
hogwild::TrainReport train(TrainRun& run, monitor::RunMonitor& monitor, hogwild::EpochEvaluator& evaluator,
                           hogwild::Progress& progress) {
  const auto& plan = run.plan;
  auto settings = run.config.settings;
  settings.learning_rate = hogwild::node_learning_rate(settings.learning_rate, run.config.lr_scaling, run.node.count);
  settings.seed = hogwild::node_seed(settings.seed, run.node.rank, plan.num_processes);
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
  report.node_rank = run.node.rank;
  report.node_count = run.node.count;
  report.node_source = std::string(cluster::to_string(run.node.source));
  if (run.sync) report.node_samples_per_second = value_or_fail(run.sync->gather(hogwild::samples_per_second(report)));
  report.model_checksum = hogwild::parameters_checksum(run.store.parameters());
  report.kernels = run.kernels;
  hogwild::refuse_diverged(run.store, run.config);
  if (!run.leader()) return;
  hogwild::save_model(run.config, run.store, report);
  const int threads = std::max(1, run.plan.usable_cpus);
  // A stop (SIGINT, SIGTERM…) does not wait for the epochs' evaluations still queued: the model is saved.
  if (report.interrupted_by == 0) {
    evaluate_epochs(evaluator, threads, Backlog::all, progress, report);
  } else if (evaluator.due()) {
    print_note(fmt::format("mptrain: {}: the evaluations of the epochs still queued are left out\n",
                           procmgr::signal_name(report.interrupted_by)));
  }
  hogwild::evaluate_final_model(run.config, run.store, run.test_data, threads, report);
}

}  // namespace mptrain::launch
