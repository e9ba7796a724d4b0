// The built-in training's policy around the workers (`mptrain run` without a
// command): what a run trains, what it refuses before training, the
// workers' signals, evaluation per epoch, divergence, and the exit code.
// Functions that decide an exit code throw util/failure.hpp's Failure.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hogwild/idx.hpp"
#include "hogwild/model.hpp"
#include "hogwild/node_training.hpp"
#include "hogwild/report.hpp"
#include "hogwild/store.hpp"
#include "hogwild/trainer.hpp"
#include "procmgr/group.hpp"
#include "procmgr/signals.hpp"

namespace mptrain::hogwild {

// Where --data looks by default: Debian's dataset-fashion-mnist package.
inline constexpr const char* default_data_dir = "/usr/share/datasets/fashion-mnist";

// --eval-every-epoch keeps a copy of the model per epoch in shared memory
// until the run ends; this bounds their total size.
inline constexpr std::size_t max_snapshot_bytes = std::size_t{1} << 30;

// What a run trains and the files it reads and writes; the defaults are the options' own.
struct TrainConfig {
  TrainSettings settings;
  std::string data = default_data_dir;
  std::string save_model;    // "": not saved
  std::string resume;        // "": a fresh model
  bool model_given = false;  // --model was given (else a --resume checkpoint's model is taken)
  bool eval_every_epoch = false;
  long train_limit = 0;     // 0: all
  double sync_every = 1.0;  // seconds between averages across nodes
  // Across K nodes, linear: each node's workers step at K × --lr, so the
  // mean of the nodes' progress moves the model as far as one machine's
  // workers would on the same samples; none: every node steps at --lr.
  LrScaling lr_scaling = LrScaling::linear;
};

// With --resume and no --model, the checkpoint's model (read from its
// header; left as it is when the header cannot be read: loading says why).
void take_checkpoint_model(TrainConfig& config);

// The epochs whose model is kept for evaluation while the workers go on:
// every epoch but the last with --eval-every-epoch (the last one's model is
// the final model). Throws a usage Failure when their copies would not fit
// in max_snapshot_bytes.
int snapshot_epochs(const TrainConfig& config, const ModelLayout& layout);

// Refuses what would fail only after training: a --save-model path that must
// not be replaced or cannot be written (save.hpp's check_save_path), and
// epoch snapshots that do not fit.
void check_before_training(const TrainConfig& config, const ModelLayout& layout);

// `split` of --data in shared memory, at most `limit` samples (0: all);
// throws a runtime Failure when it cannot be loaded or its images are not 28x28.
Dataset load_split(const TrainConfig& config, Split split, long limit);

// The shared store for `workers` workers holding the initial model: freshly
// initialised, or the checkpoint --resume names, whose totals go to
// `resumed`. Throws a runtime Failure when either cannot be made.
ParameterStore initial_store(const TrainConfig& config, const ModelLayout& layout, int workers, Resumed& resumed);

// A training worker's handlers (procmgr's GroupOptions::worker_signals:
// installed before any signal reaches it): every stop signal sent to a
// worker itself (a scheduler signals every process of a job) stops it after
// its batch, as SIGTERM does; SIGUSR1 is for the parent, which saves the model.
void install_worker_signals();

// Evaluates, for --eval-every-epoch, the snapshot of each epoch every worker
// has completed (the store keeps one per epoch, taken by the last worker to
// complete it), in epoch order, while the workers go on with later epochs.
class EpochEvaluator {
 public:
  EpochEvaluator(const ParameterStore& store, const Dataset& test, ModelKind kind)
      : store_(store), test_(test), kind_(kind) {}

  // The next epoch's evaluation with `threads` threads, once every worker
  // completed it; nullopt while none is due.
  std::optional<EpochEvaluation> next(int threads);
  // Whether an epoch's evaluation is due (every worker completed it).
  bool due() const;

 private:
  const ParameterStore& store_;
  const Dataset& test_;
  ModelKind kind_;
  int next_ = 1;  // the next epoch to evaluate
};

// Evaluates the final model into `report.test`; with --eval-every-epoch it
// is also the last epoch's evaluation when every worker completed it.
void evaluate_final_model(const TrainConfig& config, ParameterStore& store, const Dataset& test, int threads,
                          TrainReport& report);

// True when every parameter is a finite number.
bool all_finite(std::span<const float> parameters);
// What diverged, in words; empty when training did not diverge.
std::string divergence(ParameterStore& store);
// Throws the runtime Failure of a run whose model diverged, said with what
// became of --save-model (never saved) and the options to lower; returns otherwise.
void refuse_diverged(ParameterStore& store, const TrainConfig& config);

// The run's exit code, after the report: a failed worker's own code, else 1
// for a model that could not be saved, else 128 + the signal that stopped
// training, else 0. Throws the Failure main prints for the first two.
int exit_status(const TrainConfig& config, const TrainReport& report);

// After start-up phase `phase` ("loading the data"): says through `note`
// that a SIGUSR1 `pending` held had no model to save yet, and throws the
// Failure (exit 128 + the signal) of a stop signal it held, as nothing was
// trained or saved.
void check_startup_signals(procmgr::PendingSignals& pending, std::string_view phase,
                           const std::function<void(std::string_view)>& note);

// Records in `report` how the group `result` ended: the signal that stopped
// it, the worker that failed, and each worker's samples (from `store`) and time.
void record_group(const procmgr::GroupResult& result, const ParameterStore& store, TrainReport& report);

// The warning that the options `given` (--sync-every, --lr-scaling) do
// nothing on one node; "" when none was given.
std::string node_options_warning(const std::vector<std::string>& given);

}  // namespace mptrain::hogwild
