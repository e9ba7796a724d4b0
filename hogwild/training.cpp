#include "hogwild/training.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <csignal>

#include "hogwild/checkpoint.hpp"
#include "hogwild/save.hpp"
#include "hogwild/shapes.hpp"
#include "procmgr/group.hpp"
#include "procmgr/outcome.hpp"
#include "procmgr/signals.hpp"
#include "util/failure.hpp"
#include "util/text.hpp"

namespace mptrain::hogwild {

void take_checkpoint_model(TrainConfig& config) {
  if (config.resume.empty() || config.model_given) return;
  if (const auto kind = checkpoint_model(config.resume); kind.ok()) config.settings.model = *kind;
}

int snapshot_epochs(const TrainConfig& config, const ModelLayout& layout) {
  if (!config.eval_every_epoch || config.settings.epochs < 2) return 0;
  const int kept = config.settings.epochs - 1;
  const std::size_t bytes = static_cast<std::size_t>(kept) * layout.parameter_count * sizeof(float);
  if (bytes > max_snapshot_bytes) {
    usage_failure(
        "--eval-every-epoch keeps the model of every epoch until it is evaluated: {} of model {} need {} MiB, more "
        "than the {} MiB allowed; train fewer epochs per run (--epochs, then --resume the saved model)",
        counted(kept, "epoch"), to_string(config.settings.model), bytes >> 20, max_snapshot_bytes >> 20);
  }
  return kept;
}

void check_before_training(const TrainConfig& config, const ModelLayout& layout) {
  check_save_path(config);
  snapshot_epochs(config, layout);
}

Dataset load_split(const TrainConfig& config, Split split, long limit) {
  auto data = value_or_fail(load_dataset(config.data, split, limit));
  if (data.rows * data.cols != image_pixels) {
    runtime_failure("{}: {} images are {}x{}; the models need 28x28 (MNIST format)", config.data, file_prefix(split),
                    data.rows, data.cols);
  }
  return data;
}

ParameterStore initial_store(const TrainConfig& config, const ModelLayout& layout, int workers, Resumed& resumed) {
  auto store = value_or_fail(ParameterStore::create(layout, workers, snapshot_epochs(config, layout)));
  if (config.resume.empty()) {
    initialize_parameters(layout, config.settings.seed, store.parameters());
    return store;
  }
  auto loaded = load_checkpoint(config.resume, layout.kind);
  if (!loaded.ok()) runtime_failure("--resume: {}", loaded.error().message);
  const auto& checkpoint = *loaded;
  std::copy(checkpoint.parameters.begin(), checkpoint.parameters.end(), store.parameters().begin());
  resumed = {checkpoint.epochs, checkpoint.samples};
  return store;
}

void install_worker_signals() {
  install_stop_handlers();
  struct sigaction stop {};
  ::sigaction(SIGTERM, nullptr, &stop);
  for (int signal : procmgr::stop_signals()) {
    if (signal != SIGINT && signal != SIGTERM) ::sigaction(signal, &stop, nullptr);
  }
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGUSR1, &ignore, nullptr);
}

bool EpochEvaluator::due() const { return store_.epoch_snapshot(next_).has_value(); }

std::optional<EpochEvaluation> EpochEvaluator::next(int threads) {
  const auto snapshot = store_.epoch_snapshot(next_);
  if (!snapshot) return std::nullopt;
  EpochEvaluation done{next_, evaluate(kind_, *snapshot, test_, threads)};
  ++next_;
  return done;
}

void evaluate_final_model(const TrainConfig& config, ParameterStore& store, const Dataset& test, int threads,
                          TrainReport& report) {
  report.test = evaluate(config.settings.model, store.parameters(), test, threads);
  const int epochs = config.settings.epochs;
  if (config.eval_every_epoch && epochs > 0 && store.totals().completed_epochs == epochs) {
    report.epochs.push_back({epochs, report.test});
  }
}

bool all_finite(std::span<const float> parameters) {
  return std::all_of(parameters.begin(), parameters.end(), [](float value) { return std::isfinite(value); });
}

std::string divergence(ParameterStore& store) {
  const auto diverged = store.divergence();
  if (!diverged) return {};
  if (diverged->rank < 0) return "the model's parameters are NaN or infinite";
  return fmt::format("the training loss of rank {} became {} in epoch {}, after {} of its samples", diverged->rank,
                     std::isnan(diverged->loss) ? "NaN" : "infinite", diverged->epoch, diverged->samples);
}

void refuse_diverged(ParameterStore& store, const TrainConfig& config) {
  const std::string what = divergence(store);
  if (what.empty()) return;
  const auto& path = config.save_model;
  const std::string kept = path.empty()       ? ""
                           : exists_now(path) ? fmt::format("; the model was not saved, {} is as it was", path)
                                              : fmt::format("; the model was not saved, {} was not created", path);
  runtime_failure("training diverged: {}{}; lower --lr ({} now) or --momentum ({} now)", what, kept,
                  config.settings.learning_rate, config.settings.momentum);
}

namespace {

// What main prints about a worker's failure and a failed save; "" for neither.
std::string failure_text(const TrainConfig& config, const TrainReport& report) {
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
    message += fmt::format("cannot save the model: {}; {} {}: {}", report.save_error, config.save_model,
                           exists_now(config.save_model) ? "is as it was before this run" : "was not created",
                           save_advice(report.save_errno));
  }
  return message;
}

}  // namespace

int exit_status(const TrainConfig& config, const TrainReport& report) {
  const std::string message = failure_text(config, report);
  if (report.failed_rank) throw Failure(report.failure_code, message);
  if (!message.empty()) throw Failure(exit_code::runtime_failure, message);
  if (report.interrupted_by == 0) return exit_code::success;
  return procmgr::ExitStatus{procmgr::ExitStatus::Kind::signaled, report.interrupted_by}.shell_code();
}

void check_startup_signals(procmgr::PendingSignals& pending, std::string_view phase,
                           const std::function<void(std::string_view)>& note) {
  if (pending.take_usr1()) {
    note(
        fmt::format("mptrain: SIGUSR1 during start-up ({}): there is no model to save yet; training goes on\n", phase));
  }
  if (const int signal = pending.stop(); signal != 0) {
    throw Failure(procmgr::ExitStatus{procmgr::ExitStatus::Kind::signaled, signal}.shell_code(),
                  fmt::format("{} during start-up ({}): stopped before training began; nothing was trained or saved",
                              procmgr::signal_name(signal), phase));
  }
}

void record_group(const procmgr::GroupResult& result, const ParameterStore& store, TrainReport& report) {
  report.interrupted_by = result.forwarded_signal;
  if (result.failed_rank) {
    report.failed_rank = result.failed_rank;
    report.failure_code = result.exit_code();
    report.failed_worker = procmgr::describe_worker(result.workers.at(static_cast<std::size_t>(*result.failed_rank)));
    report.failure = procmgr::failure_message(result, "training worker ");
  }
  for (int rank = 0; rank < store.worker_count(); ++rank) {
    report.worker_samples.push_back(store.counters(rank).samples.load(std::memory_order_relaxed));
    report.worker_seconds.push_back(result.workers.at(static_cast<std::size_t>(rank)).wall_seconds);
    report.samples += report.worker_samples.back();
    report.flops += store.counters(rank).flops.load(std::memory_order_relaxed);
  }
}

std::string node_options_warning(const std::vector<std::string>& given) {
  if (given.empty()) return {};
  return fmt::format("{} {} only across nodes (under mpirun or srun); this run is one node, so {} no effect",
                     fmt::join(given, " and "), given.size() == 1 ? "applies" : "apply",
                     given.size() == 1 ? "it has" : "they have");
}

}  // namespace mptrain::hogwild
