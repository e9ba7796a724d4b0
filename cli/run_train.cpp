// `mptrain run [placement] [training options]`: the built-in Hogwild
// training. Plan the workers, load the data and the model into shared
// memory, fork M pinned workers that update the model lock-free, show
// progress, then evaluate, save and report.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <string>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/run.hpp"
#include "cli/run_monitor.hpp"
#include "hogwild/checkpoint.hpp"
#include "hogwild/idx.hpp"
#include "hogwild/model.hpp"
#include "hogwild/store.hpp"
#include "hogwild/trainer.hpp"
#include "procmgr/group.hpp"
#include "util/failure.hpp"
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
  bool eval_every_epoch = false;
  long train_limit = 0;  // 0: all
};

namespace {

// --model NAME, stored in `kind`; --help lists the names and shows the default.
void add_model_option(CLI::App& command, hogwild::ModelKind& kind, const char* group) {
  const CLI::Validator known_name(
      [](const std::string& name) {
        const auto parsed = hogwild::parse_model_kind(name);
        return parsed.ok() ? std::string() : parsed.error().message;
      },
      "{cnn,mlp,logreg}");
  const auto store = [&kind](const std::string& name) { kind = *hogwild::parse_model_kind(name); };
  command.add_option_function<std::string>("--model", store, "Network: cnn, mlp or logreg")
      ->type_name("MODEL")
      ->check(known_name)
      ->default_str(std::string(hogwild::to_string(kind)))
      ->group(group);
}

}  // namespace

std::shared_ptr<TrainOptions> add_train_options(CLI::App& command) {
  auto options = std::make_shared<TrainOptions>();
  auto& settings = options->settings;
  const char* group = "Training (run without -- CMD)";
  command.add_option("--data", options->data, "Directory of MNIST-format IDX files, plain or .gz")
      ->type_name("DIR")
      ->group(group);
  add_model_option(command, settings.model, group);
  command.add_option("--epochs", settings.epochs, "Passes over the training set per worker")
      ->check(at_least(0))
      ->group(group);
  command.add_option("--batch-size", settings.batch_size, "Samples per optimiser step")
      ->check(CLI::Range(1, 1 << 20, "at least 1"))
      ->group(group);
  command.add_option("--lr", settings.learning_rate, "SGD learning rate")->check(at_least(0))->group(group);
  command.add_option("--momentum", settings.momentum, "SGD momentum, each worker its own")
      ->check(from_to(0, 1))
      ->group(group);
  command.add_option("--seed", settings.seed, "Seed of initialisation, shuffles (seed + rank) and dropout")
      ->group(group);
  command.add_option("--save-model", options->save_model, "Write the trained model to PATH (also when interrupted)")
      ->type_name("PATH")
      ->group(group);
  command.add_option("--resume", options->resume, "Start from the model saved in PATH")
      ->type_name("PATH")
      ->group(group);
  command.add_flag("--eval-every-epoch", options->eval_every_epoch, "Report test accuracy after every epoch")
      ->group(group);
  command.add_option("--train-limit", options->train_limit, "Use only the first N training samples (0: all)")
      ->type_name("N")
      ->check(at_least(0))
      ->group(group);
  return options;
}

namespace {

using Clock = std::chrono::steady_clock;

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
  std::vector<double> worker_seconds;  // each worker's wall time
  std::vector<EpochEvaluation> epochs;
  int interrupted_by = 0;  // the signal that stopped training early, 0: none
};

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
  auto store = value_or_fail(hogwild::ParameterStore::create(layout, workers));
  if (options.resume.empty()) {
    hogwild::initialize_parameters(layout, options.settings.seed, store.parameters());
    return store;
  }
  auto checkpoint = value_or_fail(hogwild::load_checkpoint(options.resume, layout.kind));
  std::copy(checkpoint.parameters.begin(), checkpoint.parameters.end(), store.parameters().begin());
  resumed_epochs = checkpoint.epochs;
  resumed_samples = checkpoint.samples;
  return store;
}

// Progress on stderr: a bar redrawn in place on a terminal, a plain line every few seconds otherwise.
class Progress {
 public:
  Progress(const hogwild::ParameterStore& store, std::uint64_t total)
      : store_(store), total_(total), terminal_(::isatty(STDERR_FILENO) != 0), start_(Clock::now()) {}

  // Shows the workers' published counters and the monitor's live `verdict`
  // (called on every supervisor tick).
  void update(const std::string& verdict) {
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double since_shown = std::chrono::duration<double>(now - shown_).count();
    // A changed verdict is shown at once; otherwise redraw a bar 5 times a second, or print a line every 5 s.
    if (since_shown < (terminal_ ? 0.2 : 5.0) && verdict == shown_verdict_) return;
    shown_ = now;
    shown_verdict_ = verdict;
    std::uint64_t samples = 0;
    double loss = 0;
    for (int rank = 0; rank < store_.worker_count(); ++rank) {
      samples += store_.counters(rank).samples.load(std::memory_order_relaxed);
      loss += store_.counters(rank).recent_loss.load(std::memory_order_relaxed);
    }
    loss /= std::max(1, store_.worker_count());
    const double rate = elapsed > 0 ? static_cast<double>(samples) / elapsed : 0.0;
    const double fraction = total_ > 0 ? static_cast<double>(samples) / static_cast<double>(total_) : 1.0;
    if (terminal_) {
      const int width = 30;
      const auto filled = static_cast<std::size_t>(std::clamp(static_cast<int>(fraction * width), 0, width));
      fmt::print(stderr, "\r[{}{}] {:3.0f}%  {}/{} samples  {:.0f} samples/s  loss {:.4f}  {} ",
                 std::string(filled, '#'), std::string(width - filled, '.'), 100 * fraction, samples, total_, rate,
                 loss, verdict);
      drawn_ = true;
    } else {
      fmt::print(stderr, "mptrain: {:3.0f}%  {}/{} samples  {:.0f} samples/s  loss {:.4f}  monitor {}\n",
                 100 * fraction, samples, total_, rate, loss, verdict);
    }
    std::fflush(stderr);
  }

  // Ends the bar's line.
  void finish() {
    if (drawn_) fmt::print(stderr, "\n");
    drawn_ = false;
  }

 private:
  const hogwild::ParameterStore& store_;
  std::uint64_t total_;
  bool terminal_;
  Clock::time_point start_;
  Clock::time_point shown_{};
  std::string shown_verdict_;
  bool drawn_ = false;
};

// Epochs every worker completed.
int completed_epochs(const hogwild::ParameterStore& store) {
  int done = std::numeric_limits<int>::max();
  for (int rank = 0; rank < store.worker_count(); ++rank) {
    done = std::min(done, store.counters(rank).epoch.load(std::memory_order_relaxed));
  }
  return store.worker_count() > 0 ? done : 0;
}

// Evaluates the store after each epoch all workers have completed (--eval-every-epoch), during training.
class EpochEvaluator {
 public:
  EpochEvaluator(hogwild::ParameterStore& store, const hogwild::Dataset& test, hogwild::ModelKind kind, int last_epoch)
      : store_(store), test_(test), kind_(kind), last_epoch_(last_epoch) {}

  // Evaluates every newly completed epoch except the last (evaluated after the workers end).
  void update(std::vector<EpochEvaluation>& out, Progress& progress) {
    const int done = std::min(last_epoch_, completed_epochs(store_));
    while (evaluated_ < done && evaluated_ + 1 < last_epoch_) {
      ++evaluated_;
      std::vector<float> snapshot(store_.parameters().size());
      store_.snapshot(snapshot);
      const auto result = hogwild::evaluate(kind_, snapshot, test_, 1);
      progress.finish();
      fmt::print(stderr, "mptrain: epoch {}: test accuracy {:.4f}, test loss {:.4f}\n", evaluated_, result.accuracy,
                 result.loss);
      out.push_back({evaluated_, result});
    }
  }

 private:
  hogwild::ParameterStore& store_;
  const hogwild::Dataset& test_;
  hogwild::ModelKind kind_;
  int last_epoch_;
  int evaluated_ = 0;
};

// Forks the workers, shows progress until they end; fails naming the first worker that failed.
TrainReport train(const affinity::Plan& plan, const TrainOptions& options, const hogwild::Dataset& train_data,
                  const hogwild::Dataset& test_data, hogwild::ParameterStore& store, RunMonitor& monitor) {
  const auto& settings = options.settings;
  TrainReport report;
  const auto total = static_cast<std::uint64_t>(plan.num_processes) * static_cast<std::uint64_t>(settings.epochs) *
                     static_cast<std::uint64_t>(train_data.count);
  Progress progress(store, total);
  EpochEvaluator evaluator(store, test_data, settings.model, options.eval_every_epoch ? settings.epochs : 0);
  procmgr::GroupOptions group;
  group.root = FsRoot::from_env();
  group.output = procmgr::Output::inherit;
  group.on_tick = [&](const std::vector<pid_t>& pids) {
    monitor.observe(pids);
    progress.update(monitor.live_verdict());
    evaluator.update(report.epochs, progress);
  };
  const auto worker = [&](const procmgr::WorkerSpec& spec) -> int {
    hogwild::install_stop_handlers();
    hogwild::WorkerSetup setup{spec.rank, plan.threads_per_process, spec.cpus};
    auto outcome = hogwild::train_worker(settings, train_data, store, setup);
    if (!outcome.ok()) {
      print_error(fmt::format("rank {}: {}", spec.rank, outcome.error().message));
      return exit_code::runtime_failure;
    }
    return exit_code::success;
  };
  const auto start = Clock::now();
  const auto result = value_or_fail(procmgr::run_group(worker_specs(plan), procmgr::ChildFunction(worker), group));
  report.train_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  progress.finish();
  for (const auto& warning : result.warnings) print_warning(warning);
  if (result.failed_rank) throw Failure(result.exit_code(), failure_message(result, "training worker "));
  report.interrupted_by = result.forwarded_signal;
  for (int rank = 0; rank < store.worker_count(); ++rank) {
    report.worker_samples.push_back(store.counters(rank).samples.load(std::memory_order_relaxed));
    report.worker_seconds.push_back(result.workers.at(static_cast<std::size_t>(rank)).wall_seconds);
    report.samples += report.worker_samples.back();
  }
  return report;
}

double samples_per_second(const TrainReport& report) {
  return report.train_seconds > 0 ? static_cast<double>(report.samples) / report.train_seconds : 0.0;
}

double worker_rate(const TrainReport& report, std::size_t rank) {
  const double seconds = report.worker_seconds.at(rank);
  return seconds > 0 ? static_cast<double>(report.worker_samples.at(rank)) / seconds : 0.0;
}

void print_text_report(const affinity::Plan& plan, const TrainOptions& options, const TrainReport& report,
                       const RunMonitor& monitor) {
  const auto& settings = options.settings;
  std::string text = fmt::format(
      "mptrain run: model {}, {}, bind {}, {}, batch {}\n", hogwild::to_string(settings.model),
      workers_by_threads(plan), affinity::to_string(plan.bind), counted(settings.epochs, "epoch"), settings.batch_size);
  if (report.interrupted_by != 0) {
    text += fmt::format("  interrupted by {}: the workers stopped after their current batch\n",
                        procmgr::signal_name(report.interrupted_by));
  }
  text += fmt::format("  samples           {}\n", report.samples);
  text += fmt::format("  train seconds     {:.3f}\n", report.train_seconds);
  text += fmt::format("  samples/s         {:.0f}\n", samples_per_second(report));
  text += fmt::format("  test accuracy     {:.4f}\n", report.test.accuracy);
  text += fmt::format("  test loss         {:.4f}\n", report.test.loss);
  text += fmt::format("  {:>4}  {:<12}  {:>10}  {:>9}  {:>10}\n", "rank", "cpus", "samples", "seconds", "samples/s");
  for (const auto& placement : plan.workers) {
    const auto rank = static_cast<std::size_t>(placement.rank);
    text += fmt::format("  {:>4}  {:<12}  {:>10}  {:>9.3f}  {:>10.0f}\n", placement.rank, placement.cpus.to_string(),
                        report.worker_samples.at(rank), report.worker_seconds.at(rank), worker_rate(report, rank));
  }
  text += monitor.text();
  if (!options.save_model.empty()) text += fmt::format("  model saved to    {}\n", options.save_model);
  fmt::print("{}", text);
}

// `value` as the double of its shortest decimal form: --lr 0.01 is reported
// as 0.01, not as the float's exact 0.009999999776.
double as_written(float value) { return std::stod(fmt::format("{}", value)); }

nlohmann::json json_report(const affinity::Plan& plan, const TrainOptions& options, const TrainReport& report,
                           int train_samples, const RunMonitor& monitor) {
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
  return {{"model", hogwild::to_string(settings.model)},
          {"samples", report.samples},
          {"train_samples", train_samples},
          {"train_seconds", report.train_seconds},
          {"samples_per_second", samples_per_second(report)},
          {"test_accuracy", report.test.accuracy},
          {"test_loss", report.test.loss},
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
          {"saved_model", options.save_model.empty() ? nlohmann::json(nullptr) : nlohmann::json(options.save_model)},
          {"workers", std::move(workers)},
          {"monitor", monitor.report()}};
}

}  // namespace

int run_training(const RunOptions& options) {
  const TrainOptions& train_options = *options.train;
  const auto& settings = train_options.settings;
  const auto layout = hogwild::model_layout(settings.model);
  // A checkpoint that cannot be written is found now, not after hours of training.
  if (!train_options.save_model.empty()) {
    value_or_fail(check_replaceable(train_options.save_model), exit_code::usage_error);
    value_or_fail(check_can_create(train_options.save_model));
  }
  // 1. Plan: M workers, T threads each, their CPUs.
  const auto plan = plan_for_this_machine(options.placement);
  // 2. Data: loaded once into shared read-only memory, inherited by every worker.
  const auto train_data = load_split(train_options, hogwild::Split::train, train_options.train_limit);
  const auto test_data = load_split(train_options, hogwild::Split::test, 0);
  // 3. The shared parameter store: initialised, or the checkpoint to resume.
  std::uint64_t resumed_epochs = 0;
  std::uint64_t resumed_samples = 0;
  auto store = initial_store(train_options, layout, plan.num_processes, resumed_epochs, resumed_samples);
  // 4. Train: fork the pinned workers, show progress and the monitor's live
  //    verdict, stop all when one fails.
  RunMonitor monitor(plan);
  auto report = train(plan, train_options, train_data, test_data, store, monitor);
  // 5. Save (also after SIGINT/SIGTERM) before anything else can go wrong.
  if (!train_options.save_model.empty()) {
    value_or_fail(hogwild::save_checkpoint(train_options.save_model, layout, store.parameters(),
                                           resumed_epochs + static_cast<std::uint64_t>(completed_epochs(store)),
                                           resumed_samples + report.samples));
  }
  // 6. Evaluate the final model on the test set, then report.
  report.test = hogwild::evaluate(settings.model, store.parameters(), test_data, std::max(1, plan.usable_cpus));
  if (train_options.eval_every_epoch && report.interrupted_by == 0 && settings.epochs > 0) {
    report.epochs.push_back({settings.epochs, report.test});
  }
  if (options.json) {
    print_json(json_report(plan, train_options, report, train_data.count, monitor));
  } else {
    print_text_report(plan, train_options, report, monitor);
  }
  return report.interrupted_by != 0 ? 128 + report.interrupted_by : exit_code::success;
}

}  // namespace mptrain::cli
