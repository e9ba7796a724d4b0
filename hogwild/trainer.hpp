// The worker loop (full epochs with its own shuffle, each batch's gradient
// computed across T pinned oneTBB threads, lock-free updates of the shared
// store) and the evaluation of a model on a dataset.
#pragma once

#include <cstdint>
#include <span>

#include "hogwild/idx.hpp"
#include "hogwild/model.hpp"
#include "hogwild/store.hpp"
#include "util/cpu_set.hpp"
#include "util/result.hpp"

namespace mptrain::hogwild {

// The training hyper-parameters. Their defaults (the peer's) are the only
// copy: `mptrain run` binds its options to these fields and --help shows them.
struct TrainSettings {
  ModelKind model = ModelKind::cnn;
  int epochs = 1;
  int batch_size = 64;
  float learning_rate = 0.01f;
  float momentum = 0.5f;
  std::uint64_t seed = 1;
  // The part of the training set this node trains on (a node's shard when
  // several nodes train): samples first_sample .. first_sample + sample_count - 1;
  // sample_count 0: every sample.
  int first_sample = 0;
  int sample_count = 0;
};

// Where one worker runs.
struct WorkerSetup {
  int rank = 0;
  int threads = 1;  // oneTBB arena size T
  CpuSet cpus;      // thread i is pinned to cpus[i % size]; empty: threads are not pinned
};

// What one worker did.
struct WorkerOutcome {
  std::uint64_t samples = 0;  // training samples processed
  bool stopped = false;       // true when a stop request ended it early
  bool diverged = false;      // true when a batch's loss became NaN or infinite, which ended it
};

// Trains as worker `setup.rank`: `settings.epochs` passes over `data`, each
// in its own order (seed + rank), publishing progress and each completed
// epoch in `store` (ParameterStore::complete_epoch), and stopping after the
// current batch once a stop is requested (SIGINT/SIGTERM after
// install_stop_handlers()) or once a batch's loss is NaN or infinite (then
// marked `diverged` in the outcome and in its counters). Returns an Error
// when a thread cannot be pinned.
Result<WorkerOutcome> train_worker(const TrainSettings& settings, const Dataset& data, ParameterStore& store,
                                   const WorkerSetup& setup);

// Makes SIGINT and SIGTERM request a clean stop of train_worker in this process.
void install_stop_handlers();

// Test accuracy and mean loss of a model.
struct Evaluation {
  double accuracy = 0;
  double loss = 0;
  int samples = 0;
};

// Evaluates the model `kind` with `parameters` on `data` using up to
// `threads` threads; the result does not depend on `threads`.
Evaluation evaluate(ModelKind kind, std::span<const float> parameters, const Dataset& data, int threads);

}  // namespace mptrain::hogwild
