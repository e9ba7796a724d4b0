// `mptrain run [placement] [training options]`: the built-in Hogwild
// training. Plan the workers, load the data and the model into shared
// memory, fork M pinned workers that update the model lock-free, show
// progress and each epoch's evaluation, then stop a diverged run, save,
// evaluate and report.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/node_sync.hpp"
#include "cli/options.hpp"
#include "cli/progress.hpp"
#include "cli/run.hpp"
#include "cli/run_monitor.hpp"
#include "hogwild/checkpoint.hpp"
#include "hogwild/flops.hpp"
#include "hogwild/idx.hpp"
#include "hogwild/model.hpp"
#include "hogwild/node_training.hpp"
#include "hogwild/store.hpp"
#include "hogwild/trainer.hpp"
#include "procmgr/group.hpp"
#include "procmgr/signals.hpp"
#include "util/failure.hpp"
#include "util/file_lock.hpp"
#include "util/fs.hpp"

namespace mptrain::cli {

// Where --data looks by default: Debian's dataset-fashion-mnist package.
constexpr const char* default_data_dir = "/usr/share/datasets/fashion-mnist";

// The training options; the hyper-parameters and their defaults are the trainer's own.
struct TrainOptions {
  hogwild::TrainSettings settings;
  std::string data = default_data_dir;
  std::string save_model;
  std::string resume;
  bool model_given = false;  // --model was on the command line (else a --resume checkpoint's model is taken)
  bool eval_every_epoch = false;
  long train_limit = 0;     // 0: all
  double sync_every = 1.0;  // seconds between averages across nodes
  // Across K nodes, "linear": each node's workers step at K × --lr, so the
  // mean of the nodes' progress moves the model as far as one machine's
  // workers would on the same samples; "none": every node steps at --lr.
  std::string lr_scaling = "linear";
  std::vector<const CLI::Option*> node_options;  // --sync-every, --lr-scaling: they matter across nodes only
};

namespace {

// --model NAME, stored in `kind`; --help lists the names and shows the default.
void add_model_option(CLI::App& command, hogwild::ModelKind& kind, bool& given, const char* group) {
  const auto store = [&kind, &given](const std::string& name) {
    kind = value_named(hogwild::model_names, name).value_or(kind);
    given = true;
  };
  command.add_option_function<std::string>("--model", store, "Network: " + names_list(hogwild::model_names))
      ->type_name("MODEL")
      ->check(one_of(hogwild::model_names))
      ->default_str(std::string(hogwild::to_string(kind)))
      ->group(group);
}

// --lr's check: at least 0, and no larger than the float the kernels keep it in can hold.
CLI::Validator learning_rate_range() {
  constexpr double largest = std::numeric_limits<float>::max();
  return bounded(fmt::format("from 0 to {:.6g} (the largest float)", largest),
                 [](double rate) { return rate >= 0 && rate <= largest; });
}

}  // namespace

std::shared_ptr<TrainOptions> add_train_options(CLI::App& command) {
  auto options = std::make_shared<TrainOptions>();
  auto& settings = options->settings;
  const char* group = "Training (run without -- CMD)";
  command.add_option("--data", options->data, "Directory of MNIST-format IDX files, plain or .gz")
      ->type_name("DIR")
      ->check(non_empty())
      ->group(group);
  add_model_option(command, settings.model, options->model_given, group);
  command.add_option("--epochs", settings.epochs, "Passes over the training set per worker")
      ->transform(whole_number(0))
      ->group(group);
  command.add_option("--batch-size", settings.batch_size, "Samples per optimiser step")
      ->transform(whole_number(1, 1 << 20))
      ->group(group);
  command.add_option("--lr", settings.learning_rate, "SGD learning rate")
      ->transform(learning_rate_range())
      ->group(group);
  command.add_option("--momentum", settings.momentum, "SGD momentum, each worker its own")
      ->transform(from_to(0, 1))
      ->group(group);
  command.add_option("--seed", settings.seed, "Seed of initialisation, shuffles (seed + rank) and dropout")
      ->transform(whole_number(0, std::numeric_limits<long long>::max()))
      ->group(group);
  command
      .add_option("--save-model", options->save_model,
                  "Write the trained model to PATH (also when interrupted or a worker dies)")
      ->type_name("PATH")
      ->check(non_empty())
      ->group(group);
  command.add_option("--resume", options->resume, "Start from the model saved in PATH")
      ->type_name("PATH")
      ->check(non_empty())
      ->group(group);
  command.add_flag("--eval-every-epoch", options->eval_every_epoch, "Report test accuracy after every epoch")
      ->group(group);
  command.add_option("--train-limit", options->train_limit, "Use only the first N training samples (0: all)")
      ->type_name("N")
      ->transform(whole_number(0))
      ->group(group);
  auto* sync_every =
      command
          .add_option(
              "--sync-every", options->sync_every,
              "Across nodes (under mpirun): average the model with the other nodes every SECONDS while training")
          ->type_name("SECONDS")
          ->transform(from_to(0.01, 3600))
          ->default_str("1")
          ->group(group);
  auto* lr_scaling =
      command
          .add_option(
              "--lr-scaling", options->lr_scaling,
              "Across K nodes: linear (each node steps at K x --lr, so the averaged model moves as one machine's "
              "would) or none")
          ->check(one_of(hogwild::lr_scaling_names))
          ->default_str("linear")
          ->group(group);
  options->node_options = {sync_every, lr_scaling};
  return options;
}

namespace {

using Clock = std::chrono::steady_clock;

// --eval-every-epoch keeps a copy of the model per epoch in shared memory
// until the run ends; this bounds their total size.
constexpr std::size_t max_snapshot_bytes = std::size_t{1} << 30;

// One test-set evaluation after an epoch.
struct EpochEvaluation {
  int epoch = 0;
  hogwild::Evaluation result;
};

// Everything the report shows.
struct TrainReport {
  std::uint64_t samples = 0;
  double train_seconds = 0;
  hogwild::Evaluation test;
  std::vector<std::uint64_t> worker_samples;
  std::uint64_t flops = 0;             // performed by the workers' kernels (hogwild::Network::flops_done)
  std::vector<double> worker_seconds;  // each worker's wall time
  std::vector<EpochEvaluation> epochs;
  int interrupted_by = 0;          // the signal that stopped training early, 0: none
  int signal_checkpoints = 0;      // checkpoints saved on SIGUSR1 while training went on
  std::optional<int> failed_rank;  // the worker whose failure stopped training, if any
  int failure_code = 0;            // its exit code, as a shell reports it
  std::string failed_worker;       // "rank 1 (pid 1234) killed by SIGKILL"
  std::string failure;             // what main prints about it
  std::string saved_model;         // where the model was saved; empty: not saved
  std::string save_error;          // why --save-model could not be written; empty: no error
  int save_errno = 0;              // the errno behind save_error, 0: none known
  // Across nodes (empty / 0 on one node):
  std::vector<double> node_samples_per_second;  // each node's samples/s, in node order
  int sync_rounds = 0;                          // rounds of averaging
  double sync_seconds = 0;                      // time this node spent averaging
  std::string model_checksum;                   // CRC-32 of the final parameters, the same on every node
  hogwild::Isa kernels = hogwild::Isa::sse2;    // the instruction set the workers' kernels were built for
  // What --resume started from: the checkpoint's model, its epochs and samples (0 and 0: a fresh model).
  std::uint64_t resumed_epochs = 0;
  std::uint64_t resumed_samples = 0;
};

// The epochs whose model is kept for evaluation while the workers go on:
// every epoch but the last with --eval-every-epoch (the last one's model is
// the final model). A usage failure when their copies would not fit in
// max_snapshot_bytes.
int snapshot_epochs(const TrainOptions& options, const hogwild::ModelLayout& layout) {
  if (!options.eval_every_epoch || options.settings.epochs < 2) return 0;
  const int kept = options.settings.epochs - 1;
  const std::size_t bytes = static_cast<std::size_t>(kept) * layout.parameter_count * sizeof(float);
  if (bytes > max_snapshot_bytes) {
    usage_failure(
        "--eval-every-epoch keeps the model of every epoch until it is evaluated: {} of model {} need {} MiB, more "
        "than the {} MiB allowed; train fewer epochs per run (--epochs, then --resume the saved model)",
        counted(kept, "epoch"), hogwild::to_string(options.settings.model), bytes >> 20, max_snapshot_bytes >> 20);
  }
  return kept;
}

// The files a run reads that --save-model must not replace: the IDX files
// of --data. The --resume checkpoint is not one of them: it is read before
// training, so saving over it (to go on from it next time) is allowed.
std::vector<RunInput> run_inputs(const TrainOptions& options) {
  std::vector<RunInput> inputs;
  for (auto split : {hogwild::Split::train, hogwild::Split::test}) {
    const char* role = split == hogwild::Split::train ? "the training data (--data)" : "the test data (--data)";
    for (const auto& stem : hogwild::idx_stems(split)) {
      if (auto path = hogwild::find_idx_file(options.data, stem); path.ok()) inputs.push_back({*path, role});
    }
  }
  return inputs;
}

// Refuses a --save-model path that would fail or do harm only after
// training: a name too long for the file system, an input of this run, a
// file that is not a checkpoint (usage errors), a directory where the
// checkpoint cannot be created with the owner of the file it replaces
// (runtime failure).
void check_save_path(const TrainOptions& options) {
  const std::filesystem::path path = options.save_model;
  if (auto fits = check_name_fits(path); !fits.ok()) usage_failure("--save-model: {}", fits.error().message);
  value_or_fail(check_directory_usable(path, "--save-model"));
  value_or_fail(check_not_input(path, run_inputs(options)), exit_code::usage_error);
  value_or_fail(check_replaceable(path, hogwild::checkpoint_file), exit_code::usage_error);
  value_or_fail(check_can_create(path, "--save-model"));
}

// Refuses what would fail only after training: kernels MPTRAIN_ISA names
// that this CPU cannot run, a --save-model path that must not be replaced
// or cannot be written, and epoch snapshots that do not fit.
void check_before_training(const TrainOptions& options, const hogwild::ModelLayout& layout) {
  chosen_kernels();
  if (!options.save_model.empty()) check_save_path(options);
  snapshot_epochs(options, layout);
}

// The lock on --save-model held for the run's life, so that a second run
// given the same path is refused before it trains (runtime failure); none
// without --save-model.
std::optional<FileLock> lock_save_path(const TrainOptions& options) {
  if (options.save_model.empty()) return std::nullopt;
  return value_or_fail(FileLock::acquire(options.save_model, "--save-model"));
}

// Loads `split` of --data into shared memory, checking the image size the models need.
hogwild::Dataset load_split(const TrainOptions& options, hogwild::Split split, long limit) {
  auto data = value_or_fail(hogwild::load_dataset(options.data, split, limit));
  if (data.rows * data.cols != hogwild::image_pixels) {
    runtime_failure("{}: {} images are {}x{}; the models need 28x28 (MNIST format)", options.data,
                    hogwild::file_prefix(split), data.rows, data.cols);
  }
  return data;
}

// The shared store holding the initial model: freshly initialised, or the checkpoint --resume names.
hogwild::ParameterStore initial_store(const TrainOptions& options, const hogwild::ModelLayout& layout, int workers,
                                      std::uint64_t& resumed_epochs, std::uint64_t& resumed_samples) {
  auto store = value_or_fail(hogwild::ParameterStore::create(layout, workers, snapshot_epochs(options, layout)));
  if (options.resume.empty()) {
    hogwild::initialize_parameters(layout, options.settings.seed, store.parameters());
    return store;
  }
  auto loaded = hogwild::load_checkpoint(options.resume, layout.kind);
  if (!loaded.ok()) runtime_failure("--resume: {}", loaded.error().message);
  auto checkpoint = std::move(loaded).value();
  std::copy(checkpoint.parameters.begin(), checkpoint.parameters.end(), store.parameters().begin());
  resumed_epochs = checkpoint.epochs;
  resumed_samples = checkpoint.samples;
  return store;
}

// The figures the progress display shows, from the workers' published counters.
ProgressFigures progress_figures(const hogwild::ParameterStore& store, std::uint64_t total, int epochs, double elapsed,
                                 std::string verdict) {
  const auto totals = store.totals();
  ProgressFigures figures;
  figures.total = total;
  figures.epochs = epochs;
  figures.samples = totals.samples;
  figures.loss = totals.mean_loss;
  figures.rate = elapsed > 0 ? static_cast<double>(figures.samples) / elapsed : 0.0;
  figures.verdict = std::move(verdict);
  return figures;
}

// Epochs every worker completed.
int completed_epochs(const hogwild::ParameterStore& store) { return store.totals().completed_epochs; }

// Evaluates, for --eval-every-epoch, the snapshot of each epoch every worker
// has completed (the store keeps one per epoch, taken by the last worker to
// complete it), in epoch order, while the workers go on with later epochs.
class EpochEvaluator {
 public:
  EpochEvaluator(const hogwild::ParameterStore& store, const hogwild::Dataset& test, hogwild::ModelKind kind)
      : store_(store), test_(test), kind_(kind) {}

  // Evaluates with `threads` threads every snapshot completed since the last call; prints and keeps each result.
  void update(std::vector<EpochEvaluation>& out, int threads, Progress& progress) {
    for (auto snapshot = store_.epoch_snapshot(next_); snapshot; snapshot = store_.epoch_snapshot(next_)) {
      const auto result = hogwild::evaluate(kind_, *snapshot, test_, threads);
      progress.finish();
      print_note(fmt::format("mptrain: epoch {}: test accuracy {:.4f}, test loss {:.4f}\n", next_, result.accuracy,
                             result.loss));
      out.push_back({next_, result});
      ++next_;
    }
  }

 private:
  const hogwild::ParameterStore& store_;
  const hogwild::Dataset& test_;
  hogwild::ModelKind kind_;
  int next_ = 1;  // the next epoch to evaluate
};

// A training worker's handlers (GroupOptions::worker_signals: installed
// before any signal reaches it): every stop signal sent to a worker itself (a
// scheduler signals every process of a job) stops it after its batch, as
// SIGTERM does; SIGUSR1 is for the parent, which saves the model.
void install_worker_signals() {
  hogwild::install_stop_handlers();
  struct sigaction stop {};
  ::sigaction(SIGTERM, nullptr, &stop);
  for (int signal : procmgr::stop_signals()) {
    if (signal != SIGINT && signal != SIGTERM) ::sigaction(signal, &stop, nullptr);
  }
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGUSR1, &ignore, nullptr);
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

// Records in `report` how the group ended: the signal that stopped it, the
// worker that failed, and each worker's samples and time.
void record_group(const procmgr::GroupResult& result, const hogwild::ParameterStore& store, TrainReport& report) {
  report.interrupted_by = result.forwarded_signal;
  if (result.failed_rank) {
    report.failed_rank = result.failed_rank;
    report.failure_code = result.exit_code();
    report.failed_worker = describe_worker(result.workers.at(static_cast<std::size_t>(*result.failed_rank)));
    report.failure = failure_message(result, "training worker ");
  }
  for (int rank = 0; rank < store.worker_count(); ++rank) {
    report.worker_samples.push_back(store.counters(rank).samples.load(std::memory_order_relaxed));
    report.worker_seconds.push_back(result.workers.at(static_cast<std::size_t>(rank)).wall_seconds);
    report.samples += report.worker_samples.back();
    report.flops += store.counters(rank).flops.load(std::memory_order_relaxed);
  }
}

// Forks the workers and shows progress (and each epoch's evaluation) until
// they end; a worker's failure is recorded in the report, not thrown, so
// the shared model can still be saved.
TrainReport train(const affinity::Plan& plan, const hogwild::TrainSettings& settings,
                  const hogwild::Dataset& train_data, hogwild::ParameterStore& store, RunMonitor& monitor,
                  EpochEvaluator& evaluator, Progress& progress, NodeSync* sync,
                  const std::function<void()>& checkpoint) {
  TrainReport report;
  const int shard = settings.sample_count > 0 ? settings.sample_count : train_data.count;
  const auto total = static_cast<std::uint64_t>(plan.num_processes) * static_cast<std::uint64_t>(settings.epochs) *
                     static_cast<std::uint64_t>(shard);
  const auto start = Clock::now();
  procmgr::GroupOptions group;
  group.output = procmgr::Output::inherit;
  if (sync != nullptr) group.tick = std::min(group.tick, sync->period());  // a round can come every --sync-every
  group.on_tick = [&](const std::vector<pid_t>& pids) {
    monitor.observe(pids);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    progress.update(progress_figures(store, total, settings.epochs, elapsed, monitor.live_verdict()));
    evaluator.update(report.epochs, 1, progress);
    if (sync != nullptr) sync->tick();
  };
  // Signals: SIGUSR1 saves a checkpoint while the workers go on; every
  // other stop signal stops them (SIGTERM: after their batch) and is reported.
  group.pass_on.clear();
  group.notify = {SIGUSR1};
  group.on_signal = [&](int) { checkpoint(); };
  group.stop_with = SIGTERM;
  group.worker_signals = install_worker_signals;
  group.workers_start_processes = false;
  const auto worker = [&](const procmgr::WorkerSpec& spec) {
    return train_as_worker(settings, train_data, store, plan.threads_per_process, spec);
  };
  const auto result = value_or_fail(procmgr::run_group(worker_specs(plan), procmgr::ChildFunction(worker), group));
  progress.finish();
  if (sync != nullptr) {
    if (result.failed_rank && result.forwarded_signal == 0) {
      // A failed node ends the whole MPI job: the others are waiting in a round.
      print_error(
          fmt::format("this node ends the MPI job on every node: {}", failure_message(result, "training worker ")));
      sync->abort(result.exit_code());
    }
    sync->finish();  // the last rounds, then the same model on every node
    report.sync_rounds = sync->rounds();
    report.sync_seconds = sync->seconds();
  }
  report.train_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (const auto& warning : result.warnings) print_warning(warning);
  record_group(result, store, report);
  return report;
}

// True when every parameter is a finite number.
bool all_finite(std::span<const float> parameters) {
  return std::all_of(parameters.begin(), parameters.end(), [](float value) { return std::isfinite(value); });
}

// What diverged, in words; empty when training did not diverge.
std::string divergence(hogwild::ParameterStore& store) {
  const auto diverged = store.divergence();
  if (!diverged) return {};
  if (diverged->rank < 0) return "the model's parameters are NaN or infinite";
  return fmt::format("the training loss of rank {} became {} in epoch {}, after {} of its samples", diverged->rank,
                     std::isnan(diverged->loss) ? "NaN" : "infinite", diverged->epoch, diverged->samples);
}

// Stops a run whose model diverged, before anything is saved (exit 1).
void refuse_diverged(hogwild::ParameterStore& store, const TrainOptions& options) {
  const std::string what = divergence(store);
  if (what.empty()) return;
  std::error_code error;
  const bool existed = !options.save_model.empty() &&
                       std::filesystem::exists(std::filesystem::symlink_status(options.save_model, error));
  const std::string kept = options.save_model.empty() ? ""
                           : existed ? fmt::format("; the model was not saved, {} is as it was", options.save_model)
                                     : fmt::format("; the model was not saved, {} was not created", options.save_model);
  runtime_failure("training diverged: {}{}; lower --lr ({} now) or --momentum ({} now)", what, kept,
                  options.settings.learning_rate, options.settings.momentum);
}

// Writes --save-model with the run's totals, recording in `report` where it
// went or why it could not be written (reported after the report).
void save_model(const TrainOptions& options, hogwild::ParameterStore& store, std::uint64_t resumed_epochs,
                std::uint64_t resumed_samples, TrainReport& report) {
  if (options.save_model.empty()) return;
  const auto epochs = resumed_epochs + static_cast<std::uint64_t>(completed_epochs(store));
  const auto saved = hogwild::save_checkpoint(options.save_model, hogwild::model_layout(options.settings.model),
                                              store.parameters(), epochs, resumed_samples + report.samples);
  if (saved.ok()) {
    report.saved_model = options.save_model;
  } else {
    report.save_error = saved.error().message;
    report.save_errno = saved.error().code;
  }
}

// On SIGUSR1 during training: saves a copy of the shared model, as the
// workers have it now, to --save-model while they go on (a model that is
// not finite is never saved); says on stderr what was done. Returns true
// when it saved.
bool save_on_signal(const TrainOptions& options, hogwild::ParameterStore& store, std::uint64_t resumed_epochs,
                    std::uint64_t resumed_samples, Progress& progress) {
  progress.finish();
  if (options.save_model.empty()) {
    print_note("mptrain: SIGUSR1: no --save-model PATH was given, so nothing was saved; training goes on\n");
    return false;
  }
  // A copy: the workers keep updating the shared parameters, and the
  // checkpoint's checksum must match the bytes it holds.
  const auto shared = store.parameters();
  const std::vector<float> parameters(shared.begin(), shared.end());
  if (!all_finite(parameters)) {
    print_warning(
        fmt::format("SIGUSR1: the model is NaN or infinite; not saved over {}; training goes on", options.save_model));
    return false;
  }
  const auto totals = store.totals();
  const std::uint64_t samples = totals.samples;
  const auto epochs = resumed_epochs + static_cast<std::uint64_t>(totals.completed_epochs);
  const auto saved = hogwild::save_checkpoint(options.save_model, hogwild::model_layout(options.settings.model),
                                              parameters, epochs, resumed_samples + samples);
  if (!saved.ok()) {
    print_warning(fmt::format("SIGUSR1: cannot save the model: {}; training goes on", saved.error().message));
    return false;
  }
  print_note(fmt::format("mptrain: SIGUSR1: saved the model after {} samples to {}; training goes on\n", samples,
                         options.save_model));
  return true;
}

// Evaluates the final model and the epochs not yet evaluated; the last
// epoch's evaluation is the final model's when every worker completed it.
void evaluate_model(const TrainOptions& options, hogwild::ParameterStore& store, const hogwild::Dataset& test,
                    int threads, EpochEvaluator& evaluator, Progress& progress, TrainReport& report) {
  evaluator.update(report.epochs, threads, progress);
  report.test = hogwild::evaluate(options.settings.model, store.parameters(), test, threads);
  const int epochs = options.settings.epochs;
  if (options.eval_every_epoch && epochs > 0 && completed_epochs(store) == epochs) {
    report.epochs.push_back({epochs, report.test});
  }
}

double samples_per_second(const TrainReport& report) {
  return report.train_seconds > 0 ? static_cast<double>(report.samples) / report.train_seconds : 0.0;
}

double worker_rate(const TrainReport& report, std::size_t rank) {
  const double seconds = report.worker_seconds.at(rank);
  return seconds > 0 ? static_cast<double>(report.worker_samples.at(rank)) / seconds : 0.0;
}

// The learning rate `node`'s workers step at: --lr, times the node count with --lr-scaling linear.
float node_learning_rate(const TrainOptions& options, const cluster::NodeIdentity& node) {
  const auto scaling = value_named(hogwild::lr_scaling_names, options.lr_scaling).value_or(hogwild::LrScaling::linear);
  return hogwild::node_learning_rate(options.settings.learning_rate, scaling, node.count);
}

void print_text_report(const affinity::Plan& plan, const TrainOptions& options, const TrainReport& report,
                       const RunMonitor& monitor, const cluster::NodeIdentity& node) {
  const auto& settings = options.settings;
  std::string text = fmt::format(
      "mptrain run: model {}, {}, bind {}, {}, batch {}\n", hogwild::to_string(settings.model),
      workers_by_threads(plan), affinity::to_string(plan.bind), counted(settings.epochs, "epoch"), settings.batch_size);
  if (report.interrupted_by != 0) {
    text += fmt::format("  interrupted by {}: the workers stopped after their current batch\n",
                        procmgr::signal_name(report.interrupted_by));
  }
  if (report.failed_rank) text += fmt::format("  stopped early: training worker {}\n", report.failed_worker);
  text += fmt::format("  samples           {}\n", report.samples);
  text += fmt::format("  train seconds     {:.3f}\n", report.train_seconds);
  text += fmt::format("  samples/s         {:.0f}\n", samples_per_second(report));
  text += fmt::format("  kernels           {}\n", hogwild::to_string(report.kernels));
  if (node.rank == 0) {
    text += fmt::format("  test accuracy     {:.4f}\n", report.test.accuracy);
    text += fmt::format("  test loss         {:.4f}\n", report.test.loss);
  } else {
    text += "  test accuracy     (node 0 evaluates)\n";
  }
  if (node.count > 1) {
    text += fmt::format("  nodes             {} (this is node {}), samples/s per node {:.0f}\n", node.count, node.rank,
                        fmt::join(report.node_samples_per_second, ", "));
    text += fmt::format("  averaging         {} rounds, {:.3f} s (every {} s), each node stepping at lr {}\n",
                        report.sync_rounds, report.sync_seconds, options.sync_every, node_learning_rate(options, node));
  }
  if (!options.resume.empty()) {
    text += fmt::format("  resumed from      {}: {} model, {} and {} samples before this run\n", options.resume,
                        hogwild::to_string(options.settings.model),
                        counted(static_cast<long long>(report.resumed_epochs), "epoch"), report.resumed_samples);
  }
  text += fmt::format("  model checksum    {}\n", report.model_checksum);
  text += fmt::format("  {:>4}  {:<12}  {:>10}  {:>9}  {:>10}\n", "rank", "cpus", "samples", "seconds", "samples/s");
  for (const auto& placement : plan.workers) {
    const auto rank = static_cast<std::size_t>(placement.rank);
    text += fmt::format("  {:>4}  {:<12}  {:>10}  {:>9.3f}  {:>10.0f}\n", placement.rank, placement.cpus.to_string(),
                        report.worker_samples.at(rank), report.worker_seconds.at(rank), worker_rate(report, rank));
  }
  text += monitor.text();
  if (!report.saved_model.empty()) text += fmt::format("  model saved to    {}\n", report.saved_model);
  if (!report.save_error.empty())
    text += fmt::format("  model NOT saved   to {} (see the error below)\n", options.save_model);
  print_report(text);
}

// `value` as the double of its shortest decimal form: --lr 0.01 is reported
// as 0.01, not as the float's exact 0.009999999776.
double as_written(float value) { return std::stod(fmt::format("{}", value)); }

// `text` as a JSON string, or null when it is empty.
nlohmann::json json_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

nlohmann::json json_report(const affinity::Plan& plan, const TrainOptions& options, const TrainReport& report,
                           int train_samples, const RunMonitor& monitor, const cluster::NodeIdentity& node) {
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& placement : plan.workers) {
    workers.push_back({{"rank", placement.rank},
                       {"cpus", placement.cpus.to_string()},
                       {"threads", plan.threads_per_process},
                       {"samples", report.worker_samples.at(static_cast<std::size_t>(placement.rank))},
                       {"seconds", report.worker_seconds.at(static_cast<std::size_t>(placement.rank))},
                       {"samples_per_second", worker_rate(report, static_cast<std::size_t>(placement.rank))}});
  }
  nlohmann::json epochs = nlohmann::json::array();
  for (const auto& epoch : report.epochs) {
    epochs.push_back(
        {{"epoch", epoch.epoch}, {"test_accuracy", epoch.result.accuracy}, {"test_loss", epoch.result.loss}});
  }
  nlohmann::json interrupted = nullptr;
  if (report.interrupted_by != 0) interrupted = procmgr::signal_name(report.interrupted_by);
  const auto& settings = options.settings;
  nlohmann::json nodes = {{"count", node.count},
                          {"rank", node.rank},
                          {"source", cluster::to_string(node.source)},
                          {"sync_every", options.sync_every},
                          {"lr_scaling", options.lr_scaling},
                          {"learning_rate", as_written(node_learning_rate(options, node))},
                          {"sync_rounds", report.sync_rounds},
                          {"averaging_seconds", report.sync_seconds},
                          {"samples_per_second", report.node_samples_per_second},
                          {"first_sample", settings.first_sample},
                          {"shard_samples", settings.sample_count > 0 ? settings.sample_count : train_samples}};
  const bool evaluated = node.rank == 0;
  const std::int64_t flops = hogwild::flops_per_sample(settings.model);
  const double executed_per_sample =
      report.samples > 0 ? static_cast<double>(report.flops) / static_cast<double>(report.samples) : 0.0;
  return {{"model", hogwild::to_string(settings.model)},
          {"nodes", std::move(nodes)},
          {"model_checksum", report.model_checksum},
          {"resumed", options.resume.empty() ? nlohmann::json(nullptr)
                                             : nlohmann::json{{"path", options.resume},
                                                              {"model", hogwild::to_string(options.settings.model)},
                                                              {"epochs", report.resumed_epochs},
                                                              {"samples", report.resumed_samples}}},
          {"samples", report.samples},
          {"train_samples", train_samples},
          {"train_seconds", report.train_seconds},
          {"samples_per_second", samples_per_second(report)},
          {"flops_per_sample", flops},
          {"gflops", samples_per_second(report) * static_cast<double>(flops) * 1e-9},
          {"executed_flops_per_sample", executed_per_sample},
          {"executed_gflops", samples_per_second(report) * executed_per_sample * 1e-9},
          {"kernels", hogwild::to_string(report.kernels)},
          {"test_accuracy", evaluated ? nlohmann::json(report.test.accuracy) : nlohmann::json(nullptr)},
          {"test_loss", evaluated ? nlohmann::json(report.test.loss) : nlohmann::json(nullptr)},
          {"test_samples", report.test.samples},
          {"num_processes", plan.num_processes},
          {"threads_per_process", plan.threads_per_process},
          {"bind", affinity::to_string(plan.bind)},
          {"epochs", settings.epochs},
          {"batch_size", settings.batch_size},
          {"lr", as_written(settings.learning_rate)},
          {"momentum", as_written(settings.momentum)},
          {"seed", settings.seed},
          {"epoch_evaluations", std::move(epochs)},
          {"interrupted_by", interrupted},
          {"signal_checkpoints", report.signal_checkpoints},
          {"saved_model", json_or_null(report.saved_model)},
          {"save_error", json_or_null(report.save_error)},
          {"failed_rank", report.failed_rank ? nlohmann::json(*report.failed_rank) : nlohmann::json(nullptr)},
          {"workers", std::move(workers)},
          {"monitor", monitor.report()}};
}

// Where a node count that no MPI launcher gave came from, for the refusal below:
// "--nnodes 2", "PET_NNODES=2 (a Kubernetes PyTorchJob)", "Slurm's srun (SLURM_NTASKS=2)".
std::string node_count_origin(const cluster::NodeIdentity& node) {
  switch (node.source) {
    case cluster::IdentitySource::slurm:
      return fmt::format("Slurm's srun (SLURM_NTASKS={})", node.count);
    case cluster::IdentitySource::pytorch_job:
      return fmt::format("PET_NNODES={} (a Kubernetes PyTorchJob)", node.count);
    default:
      return fmt::format("--nnodes {}", node.count);
  }
}

// The MPI session of built-in training across nodes; null on one node.
// Several nodes need an MPI launcher: only MPI can average their models.
std::unique_ptr<cluster::Mpi> start_nodes(const cluster::NodeIdentity& node) {
  if (node.count == 1) return nullptr;
  if (!node.launched_by_mpi()) {
    usage_failure(
        "this mptrain learned of {} nodes from {}, which starts no MPI; built-in training across nodes averages "
        "the model over MPI: start one mptrain per node with mpirun (e.g. `mpirun -n {} mptrain run …`), or "
        "train on one node",
        node.count, node_count_origin(node), node.count);
  }
  return start_mpi(node);
}

// Restricts `settings` to `node`'s shard of `samples` training samples.
void take_shard(const cluster::NodeIdentity& node, int samples, hogwild::TrainSettings& settings) {
  const auto shard = value_or_fail(hogwild::node_shard(samples, node.rank, node.count), exit_code::usage_error);
  settings.first_sample = shard.first;
  settings.sample_count = shard.count;
}

// What to do when the model could not be saved for errno `code`.
std::string save_advice(int code) {
  if (code == ENOSPC || code == EDQUOT) return "free some space there or choose another --save-model path";
  if (code == EACCES || code == EPERM || code == EROFS) {
    return "make its directory writable or choose another --save-model path";
  }
  return "choose another --save-model path";
}

// Says that --sync-every and --lr-scaling, when given, do nothing on one node.
void warn_node_options(const TrainOptions& options) {
  std::vector<std::string> given;
  for (const CLI::Option* option : options.node_options) {
    if (option->count() > 0) given.push_back(option->get_name());
  }
  if (given.empty()) return;
  print_warning(fmt::format("{} {} only across nodes (under mpirun or srun); this run is one node, so {} no effect",
                            fmt::join(given, " and "), given.size() == 1 ? "applies" : "apply",
                            given.size() == 1 ? "it has" : "they have"));
}

// The run's exit code, after the report: a failed worker's own code, else 1
// for a model that could not be saved, else 128 + the signal that stopped
// training, else 0. Throws the Failure main prints for the first two.
int exit_status(const TrainOptions& options, const TrainReport& report) {
  std::string message;
  if (report.failed_rank) {
    message = report.failure;
    if (!report.saved_model.empty()) {
      message += fmt::format("\nthe model as the workers left it is saved in {}; go on from it with --resume {}",
                             report.saved_model, report.saved_model);
    }
  }
  if (!report.save_error.empty()) {
    if (!message.empty()) message += "\n";
    // A failed save replaced nothing: what is at the path now was there before the run.
    std::error_code error;
    const bool existed = std::filesystem::exists(std::filesystem::symlink_status(options.save_model, error));
    message +=
        fmt::format("cannot save the model: {}; {} {}: {}", report.save_error, options.save_model,
                    existed ? "is as it was before this run" : "was not created", save_advice(report.save_errno));
  }
  if (report.failed_rank) throw Failure(report.failure_code, message);
  if (!message.empty()) throw Failure(exit_code::runtime_failure, message);
  return report.interrupted_by != 0 ? 128 + report.interrupted_by : exit_code::success;
}

}  // namespace

// Stops the run when a stop signal came during start-up (`phase`): nothing
// was trained, so nothing is saved (exit 128 + the signal, the lock on
// --save-model let go); a SIGUSR1 then had nothing to save, and says so.
void check_startup_signals(procmgr::PendingSignals& pending, std::string_view phase) {
  if (pending.take_usr1()) {
    print_note(
        fmt::format("mptrain: SIGUSR1 during start-up ({}): there is no model to save yet; training goes on\n", phase));
  }
  if (const int signal = pending.stop(); signal != 0) {
    throw Failure(128 + signal, fmt::format("{} during start-up ({}): stopped before training began; nothing was "
                                            "trained or saved",
                                            procmgr::signal_name(signal), phase));
  }
}

int run_training(const RunOptions& options) {
  // SIGUSR1 saves a checkpoint while the workers train (node 0) and is
  // ignored after, when the model is about to be saved anyway. During
  // start-up every stop signal and SIGUSR1 is held until the phase ends.
  ::signal(SIGUSR1, SIG_IGN);
  std::optional<procmgr::PendingSignals> startup(std::in_place);
  TrainOptions train_options = *options.train;
  // --resume without --model trains the checkpoint's model (a --model that contradicts it is refused below).
  if (!train_options.resume.empty() && !train_options.model_given) {
    if (const auto kind = hogwild::checkpoint_model(train_options.resume); kind.ok()) {
      train_options.settings.model = *kind;
    }
  }
  const auto layout = hogwild::model_layout(train_options.settings.model);
  // What would fail only after training (the checkpoint's path, room for
  // the epoch snapshots) is found now, not after hours of training.
  check_before_training(train_options, layout);
  // 1. Plan: M workers, T threads each, their CPUs on this node's share of its host.
  const auto node_plan = plan_this_node(options.placement);
  const auto& plan = node_plan.plan;
  print_plan_notes(plan);
  // Node 0 alone saves, so it alone holds --save-model's lock, until the run ends.
  const auto save_lock = node_plan.node.rank == 0 ? lock_save_path(train_options) : std::nullopt;
  check_startup_signals(*startup, "planning");
  auto mpi = start_nodes(node_plan.node);  // null on one node
  if (!mpi) warn_node_options(train_options);
  // 2. Data: loaded once into shared read-only memory, inherited by every worker;
  //    across nodes, each node trains its own shard.
  const auto train_data = load_split(train_options, hogwild::Split::train, train_options.train_limit);
  const auto test_data = load_split(train_options, hogwild::Split::test, 0);
  check_startup_signals(*startup, "loading the data");
  if (mpi) take_shard(node_plan.node, train_data.count, train_options.settings);
  const auto& settings = train_options.settings;
  // 3. The shared parameter store: initialised, or the checkpoint to resume
  //    (across nodes, node 0's, so every node starts from the same model).
  std::uint64_t resumed_epochs = 0;
  std::uint64_t resumed_samples = 0;
  TrainOptions start_options = train_options;
  if (mpi && node_plan.node.rank != 0) start_options.resume.clear();  // node 0's model is broadcast below
  auto store = initial_store(start_options, layout, plan.num_processes, resumed_epochs, resumed_samples);
  std::optional<NodeSync> sync;
  if (mpi) sync.emplace(*mpi, store, train_options.sync_every);
  check_startup_signals(*startup, "preparing the model");
  startup.reset();  // from here the group's relay takes them
  // 4. Train: fork the pinned workers, show progress, the monitor's live
  //    verdict and each epoch's evaluation, and average with the other nodes;
  //    stop all when one fails.
  RunMonitor monitor(plan);
  monitor.set_quiet(options.quiet);
  Progress progress;
  EpochEvaluator evaluator(store, test_data, settings.model);
  auto node_settings = settings;
  node_settings.learning_rate = node_learning_rate(train_options, node_plan.node);
  node_settings.seed = hogwild::node_seed(settings.seed, node_plan.node.rank, plan.num_processes);
  int signal_checkpoints = 0;
  const auto checkpoint = [&] {
    if (node_plan.node.rank != 0) return;
    if (save_on_signal(train_options, store, resumed_epochs, resumed_samples, progress)) ++signal_checkpoints;
  };
  auto report =
      train(plan, node_settings, train_data, store, monitor, evaluator, progress, sync ? &*sync : nullptr, checkpoint);
  report.signal_checkpoints = signal_checkpoints;
  report.resumed_epochs = resumed_epochs;
  report.resumed_samples = resumed_samples;
  if (sync) report.node_samples_per_second = sync->gather(samples_per_second(report));
  report.model_checksum = hogwild::parameters_checksum(store.parameters());
  report.kernels = chosen_kernels().isa;
  // 5. A model whose loss became NaN or infinite is never saved (exit 1).
  refuse_diverged(store, train_options);
  // 6. Save, also after SIGINT/SIGTERM or a worker's death (the shared
  //    model survives it), before anything else can go wrong; node 0 only.
  const bool leader = node_plan.node.rank == 0;
  if (leader) save_model(train_options, store, resumed_epochs, resumed_samples, report);
  // 7. Evaluate the final model on the test set (node 0), then report.
  if (leader) {
    evaluate_model(train_options, store, test_data, std::max(1, plan.usable_cpus), evaluator, progress, report);
  }
  if (options.json) {
    print_json(json_report(plan, train_options, report, train_data.count, monitor, node_plan.node));
  } else {
    print_text_report(plan, train_options, report, monitor, node_plan.node);
  }
  // 8. Exit with the worker's failure, the save's, or the signal's; else 3 when the verdict reaches --fail-on.
  const int code = exit_status(train_options, report);
  if (code == exit_code::success && fails(monitor.diagnosis(), options.gate)) {
    throw Failure(exit_code::doctor_found, failed_gate_message(monitor.diagnosis(), options.gate));
  }
  return code;
}

}  // namespace mptrain::cli
